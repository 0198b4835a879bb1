import { recordAudit } from '../domain/audit/audit-log.js';
import { rollKey } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const rollApiKey: KeylessHandler<'rollApiKey'> = async ({ params, body, em, session, services, now }) => {
  const { accountId, user } = session!;
  const rolled = await rollKey(em, services.signIn.keyHashSecret, params.key_id, accountId, body.grace_minutes * 60_000, now);
  recordAudit(em, { accountId, userId: user.id, action: 'key.rolled', subject: rolled.old.displayPrefix, detail: { new_key: rolled.record.displayPrefix, grace_minutes: body.grace_minutes } }, now);
  await em.flush();
  return { status: 201, body: { key: rolled.key, api_key: keyView(rolled.record, now) } };
};
