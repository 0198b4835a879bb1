import { rollKey } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const rollApiKey: KeylessHandler<'rollApiKey'> = async ({ params, body, em, session, services, now }) => {
  const { accountId, user } = session!;
  const rolled = await rollKey(em, services.signIn.keyHashSecret, params.key_id, accountId, body.grace_minutes * 60_000, now, user.id);
  return { status: 201, body: { key: rolled.key, api_key: keyView(rolled.record, now) } };
};
