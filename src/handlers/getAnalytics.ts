import { accountAnalytics } from '../domain/usage/analytics.js';
import { analyticsView } from './dashboard-views.js';
import type { KeylessHandler } from './types.js';

export const getAnalytics: KeylessHandler<'getAnalytics'> = async ({ query, em, session, now }) => ({
  status: 200,
  body: analyticsView(await accountAnalytics(em, session!.accountId, { from: query?.from, to: query?.to }, now)),
});
