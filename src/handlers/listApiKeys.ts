import { listKeys } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const listApiKeys: KeylessHandler<'listApiKeys'> = async ({ em, session, now }) => ({
  status: 200,
  body: { keys: (await listKeys(em, session!.accountId)).map((k) => keyView(k, now)) },
});
