import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEvent } from '../../db/entities.js';

export type AuditAction = 'account.created' | 'email.verified' | 'password.reset' | 'subscription.changed' | 'key.created' | 'key.revoked' | 'key.rolled';

export interface AuditEntry {
  accountId: string;
  userId: string | null;
  action: AuditAction;
  subject?: string;
  detail?: Record<string, unknown>;
}

/** Adds an event to the account's audit log, in the caller's unit of work (written with the change it records). */
export function recordAudit(em: EntityManager, entry: AuditEntry, now: Date): void {
  em.create(AuditEvent, {
    account: entry.accountId,
    user: entry.userId,
    action: entry.action,
    subject: entry.subject ?? null,
    detail: entry.detail ?? {},
    createdAt: now,
  });
}

export async function listAudit(em: EntityManager, accountId: string, limit: number): Promise<AuditEvent[]> {
  return em.find(AuditEvent, { account: accountId }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit, populate: ['user'] });
}
