import type { WebhookEndpoint } from '../db/entities.js';
import type { DeliveryRecord } from '../domain/webhooks/deliveries.js';
import type { components } from '../generated/api-types.js';
import type { DisabledReason, WebhookEventType } from '../generated/contract-values.js';

type Schemas = components['schemas'];

/** An endpoint as the contract shows it: never its secrets. */
export function endpointView(endpoint: WebhookEndpoint): Schemas['WebhookEndpoint'] {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.eventTypes as WebhookEventType[],
    enabled: endpoint.enabled,
    disabled_reason: (endpoint.disabledReason ?? null) as DisabledReason,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
    secret_rotated_at: endpoint.secretRotatedAt?.toISOString() ?? null,
    previous_secret_expires_at: endpoint.previousSecret ? (endpoint.previousSecretExpiresAt?.toISOString() ?? null) : null,
  };
}

export function deliveryView({ delivery, attempts }: DeliveryRecord): Schemas['WebhookDelivery'] {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpoint.id,
    event_id: delivery.event.id,
    event_type: delivery.event.type,
    state: delivery.state,
    attempt_count: delivery.attemptCount,
    next_attempt_at: delivery.state === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: delivery.createdAt.toISOString(),
    attempts: attempts.map((a) => ({
      attempted_at: a.attemptedAt.toISOString(),
      status: a.status ?? null,
      response_time_ms: a.responseTimeMs,
      response_body: a.responseBody,
      error: a.error ?? null,
    })),
  };
}
