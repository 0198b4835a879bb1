import { listAudit } from '../domain/audit/audit-log.js';
import type { KeylessHandler } from './types.js';

export const getAuditLog: KeylessHandler<'getAuditLog'> = async ({ em, session }) => ({
  status: 200,
  body: {
    events: (await listAudit(em, session!.accountId, 200)).map((e) => ({
      action: e.action,
      subject: e.subject ?? null,
      user_email: e.user?.email ?? null,
      detail: e.detail as Record<string, string | number | boolean>,
      created_at: e.createdAt.toISOString(),
    })),
  },
});
