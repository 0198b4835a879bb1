import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { WebhookEndpoint } from '../../db/entities.js';
import { againOnConflict } from '../../db/availability.js';
import type { WebhookEventType } from '../../generated/contract-values.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Principal } from '../keys/principal.js';
import { newSecret } from './signing.js';
import { checkEndpointUrl, type WebhookNetwork } from './url-policy.js';
import { isUuid } from '../uuid.js';

// An account's webhook endpoints, managed by its API keys (Pro and Enterprise). Every lookup is
// by id AND account, so another account's endpoint is "not found", never "forbidden".

export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
/** How long the secret before a rotation keeps signing events. */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

/** Refuses keys whose plan has no webhooks, naming the plan. */
export function checkWebhooksAllowed(principal: Principal): void {
  if (!principal.plan.webhooks) {
    throw new ForbiddenError(`This API key does not have permission to access this resource: webhooks are not included in the ${principal.plan.name} plan.`);
  }
}

export interface NewEndpoint {
  url: string;
  eventTypes: WebhookEventType[];
  description?: string;
}

export async function createEndpoint(em: EntityManager, network: WebhookNetwork, accountId: string, spec: NewEndpoint, now: Date): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkEndpointUrl(spec.url, network);
  const secret = newSecret();
  // a transaction-scoped lock on the account makes its concurrent creations count one after another
  const endpoint = await em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`webhook-endpoints:${accountId}`]);
    if ((await tx.count(WebhookEndpoint, { account: accountId })) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw new ConflictError(`This account already has ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints, the most it may have: delete one first.`);
    }
    return tx.create(WebhookEndpoint, {
      id: randomUUID(),
      account: accountId,
      url,
      description: spec.description ?? '',
      eventTypes: [...new Set(spec.eventTypes)],
      enabled: true,
      disabledReason: null,
      secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      secretRotatedAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    });
  });
  return { endpoint, secret };
}

export async function listEndpoints(em: EntityManager, accountId: string): Promise<WebhookEndpoint[]> {
  return em.find(WebhookEndpoint, { account: accountId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function findEndpoint(em: EntityManager, accountId: string, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = isUuid(endpointId) ? await em.findOne(WebhookEndpoint, { id: endpointId, account: accountId }) : null;
  if (!endpoint) throw endpointNotFound(endpointId);
  return endpoint;
}

export function endpointNotFound(endpointId: string): NotFoundError {
  return new NotFoundError(`No webhook endpoint with id ${endpointId}.`);
}

export interface EndpointChange {
  url?: string;
  eventTypes?: WebhookEventType[];
  description?: string;
  enabled?: boolean;
}

export async function updateEndpoint(em: EntityManager, network: WebhookNetwork, accountId: string, endpointId: string, change: EndpointChange, now: Date): Promise<WebhookEndpoint> {
  const endpoint = await findEndpoint(em, accountId, endpointId);
  if (change.url !== undefined) endpoint.url = await checkEndpointUrl(change.url, network);
  if (change.eventTypes !== undefined) endpoint.eventTypes = [...new Set(change.eventTypes)];
  if (change.description !== undefined) endpoint.description = change.description;
  if (change.enabled === true && !endpoint.enabled) {
    endpoint.enabled = true;
    endpoint.disabledReason = null;
    endpoint.failingSince = null;
  } else if (change.enabled === false && endpoint.enabled) {
    endpoint.enabled = false;
    endpoint.disabledReason = 'manual';
  }
  endpoint.updatedAt = now;
  await em.flush();
  return endpoint;
}

export async function deleteEndpoint(em: EntityManager, accountId: string, endpointId: string): Promise<void> {
  const endpoint = await findEndpoint(em, accountId, endpointId);
  // its events for it alone, deliveries and attempts go with it (on delete cascade), one statement.
  // The hourly prune of old events cascades to deliveries too, from the events' side: the two can
  // deadlock, and the one PostgreSQL ends did nothing, so the delete runs again.
  await againOnConflict(() => em.nativeDelete(WebhookEndpoint, { id: endpoint.id }));
}

/** A new secret; the current one keeps signing for ROTATION_GRACE_MS (a previous one still in its grace ends now). */
export async function rotateSecret(em: EntityManager, accountId: string, endpointId: string, now: Date): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  return em.transactional(async (tx) => {
    // read under the row's lock: of two rotations at once the second makes the first's secret the
    // previous one, so every secret shown signs (without it one was kept nowhere)
    const endpoint = isUuid(endpointId) ? await tx.findOne(WebhookEndpoint, { id: endpointId, account: accountId }, { lockMode: LockMode.PESSIMISTIC_WRITE }) : null;
    if (!endpoint) throw endpointNotFound(endpointId);
    const secret = newSecret();
    endpoint.previousSecret = endpoint.secret;
    endpoint.previousSecretExpiresAt = new Date(now.getTime() + ROTATION_GRACE_MS);
    endpoint.secret = secret;
    endpoint.secretRotatedAt = now;
    endpoint.updatedAt = now;
    return { endpoint, secret };
  });
}

/** The secrets that sign an attempt at `now`: the current one, and the previous one during its grace period. */
export function signingSecrets(endpoint: Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] {
  const previous = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [endpoint.previousSecret] : [];
  return [endpoint.secret, ...previous];
}
