import { checkWebhooksAllowed, updateEndpoint } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const updateWebhookEndpoint: Handler<'updateWebhookEndpoint'> = async ({ params, body, principal, em, services, now }) => {
  checkWebhooksAllowed(principal);
  const endpoint = await updateEndpoint(em, services.webhooks.network, principal.accountId, params.endpoint_id, {
    url: body.url,
    eventTypes: body.event_types,
    description: body.description,
    enabled: body.enabled,
  }, now);
  return { body: endpointView(endpoint) };
};
