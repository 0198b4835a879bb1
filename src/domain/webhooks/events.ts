import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookEvent } from '../../db/entities.js';
import type { WebhookEventType } from '../../generated/contract-values.js';

// The outbox of webhook events. recordEvent adds an event to the caller's unit of work, so it is
// committed with the change it reports or not at all; the relay (src/jobs/webhook-worker.ts)
// turns it into deliveries. The usage events are written by the hot path's database function
// (Migration20261124100000_webhooks) in the admission's own statement instead.

/** Every type an event may have: the subscribable ones and the test event. */
export type EventType = WebhookEventType | 'webhook.test';

/** An event's id, sent as `webhook-id`: `msg_` and 32 hex digits (the database function makes the same). */
export function newEventId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/**
 * Adds an event of `accountId` to the outbox in the caller's unit of work (flushed with the
 * change it reports). `data` is the event's payload as the contract documents it for `type`.
 */
export function recordEvent(em: EntityManager, accountId: string, type: EventType, data: Record<string, unknown>, now: Date): WebhookEvent {
  return em.create(WebhookEvent, { id: newEventId(), account: accountId, endpoint: null, type, data, dedupeKey: null, createdAt: now, dispatchedAt: null });
}

/** The body sent for an event: `{type, timestamp, data}` (Standard Webhooks' payload structure). */
export function eventBody(event: Pick<WebhookEvent, 'type' | 'data' | 'createdAt'>): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.data });
}
