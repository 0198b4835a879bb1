import { revokeKey } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const revokeApiKey: KeylessHandler<'revokeApiKey'> = async ({ params, em, session, now }) => {
  const { accountId, user } = session!;
  const key = await revokeKey(em, params.key_id, now, accountId, user.id);
  return { status: 200, body: keyView(key, now) };
};
