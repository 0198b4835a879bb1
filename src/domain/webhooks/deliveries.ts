import { randomUUID } from 'node:crypto';
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookAttempt, WebhookDelivery, WebhookEvent, type WebhookEndpoint } from '../../db/entities.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { decodeCursor, encodeCursor } from '../pagination/cursor.js';
import { newEventId } from './events.js';
import { isUuid } from '../uuid.js';
import { endpointNotFound, findEndpoint } from './endpoints.js';

// An endpoint's delivery log (newest first, by cursor), test events and redeliveries. New
// deliveries are due at once; the worker (src/jobs/webhook-worker.ts) makes their attempts.

export interface DeliveryRecord {
  delivery: WebhookDelivery;
  attempts: WebhookAttempt[];
}

export interface DeliveryPage {
  deliveries: DeliveryRecord[];
  nextCursor: string | null;
}

export async function listDeliveries(em: EntityManager, accountId: string, endpointId: string, limit: number, cursor?: string): Promise<DeliveryPage> {
  const endpoint = await findEndpoint(em, accountId, endpointId);
  const after = cursor ? decodeCursor(cursor, isUuid) : null;
  const rows = await em.find(
    WebhookDelivery,
    after
      ? { endpoint, $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }] }
      : { endpoint },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1, populate: ['event'] },
  );
  const page = rows.slice(0, limit);
  const attempts = page.length ? await em.find(WebhookAttempt, { delivery: { $in: page.map((d) => d.id) } }, { orderBy: { id: 'asc' } }) : [];
  return {
    deliveries: page.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery.id === delivery.id) })),
    nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null,
  };
}

function newDelivery(em: EntityManager, endpoint: WebhookEndpoint, event: WebhookEvent, now: Date): WebhookDelivery {
  return em.create(WebhookDelivery, { id: randomUUID(), endpoint, event, state: 'pending', attemptCount: 0, nextAttemptAt: now, createdAt: now });
}

function checkEnabled(endpoint: WebhookEndpoint): void {
  if (!endpoint.enabled) throw new ConflictError(`Webhook endpoint ${endpoint.id} is disabled: enable it with updateWebhookEndpoint first.`);
}

/** A `webhook.test` event for this endpoint alone, with its delivery (the relay never fans it out). */
export async function sendTestEvent(em: EntityManager, accountId: string, endpointId: string, now: Date): Promise<DeliveryRecord> {
  const endpoint = await findEndpoint(em, accountId, endpointId);
  checkEnabled(endpoint);
  const event = em.create(WebhookEvent, {
    id: newEventId(),
    account: accountId,
    endpoint,
    type: 'webhook.test',
    data: { endpoint_id: endpoint.id },
    dedupeKey: null,
    createdAt: now,
    dispatchedAt: now,
  });
  const delivery = newDelivery(em, endpoint, event, now);
  await flushDelivery(em, endpointId);
  return { delivery, attempts: [] };
}

/** The delivery's event again, as a new delivery to the same endpoint (same webhook-id). */
export async function redeliver(em: EntityManager, accountId: string, endpointId: string, deliveryId: string, now: Date): Promise<DeliveryRecord> {
  const endpoint = await findEndpoint(em, accountId, endpointId);
  const original = isUuid(deliveryId) ? await em.findOne(WebhookDelivery, { id: deliveryId, endpoint }, { populate: ['event'] }) : null;
  if (!original) throw new NotFoundError(`No delivery with id ${deliveryId} for webhook endpoint ${endpointId}.`);
  checkEnabled(endpoint);
  const delivery = newDelivery(em, endpoint, original.event, now);
  await flushDelivery(em, endpointId);
  return { delivery, attempts: [] };
}

/** An endpoint deleted since it was read fails the new rows' foreign key: it is not found, as after the delete. */
async function flushDelivery(em: EntityManager, endpointId: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) throw endpointNotFound(endpointId);
    throw error;
  }
}
