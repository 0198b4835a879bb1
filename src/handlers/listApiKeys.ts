import { listKeys } from '../domain/keys/keys.js';
import { keyView } from './dashboard-views.js';
import type { DashboardHandler } from './types.js';

export const listApiKeys: DashboardHandler<'listApiKeys'> = async ({ em, session }) => ({
  status: 200,
  body: { keys: (await listKeys(em, session!.accountId)).map(keyView) },
});
