import { analyticsCsv } from '../domain/usage/analytics.js';
import type { KeylessHandler } from './types.js';

export const exportAnalytics: KeylessHandler<'exportAnalytics'> = async ({ query, em, session, now }) => ({
  status: 200,
  body: await analyticsCsv(em, session!.accountId, { from: query?.from, to: query?.to }, now),
  contentType: 'text/csv; charset=utf-8',
  headers: { 'Content-Disposition': 'attachment; filename="svcai-usage.csv"' },
});
