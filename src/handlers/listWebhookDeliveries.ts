import { InvalidRequestError } from '../domain/errors.js';
import { listDeliveries } from '../domain/webhooks/deliveries.js';
import { checkWebhooksAllowed } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { deliveryView } from './webhook-views.js';

/** `limit` as sent (a query-string value): a whole number from 1 to 100, 20 when absent. */
function pageSize(raw: string | number | undefined): number {
  if (raw === undefined) return 20;
  const text = String(raw);
  const n = Number(text);
  if (!/^\d{1,3}$/.test(text) || n < 1 || n > 100) {
    throw new InvalidRequestError("Parameter 'limit' must be a whole number from 1 to 100.", [{ path: '/limit', message: 'must be a whole number from 1 to 100' }]);
  }
  return n;
}

export const listWebhookDeliveries: Handler<'listWebhookDeliveries'> = async ({ params, query, principal, em }) => {
  checkWebhooksAllowed(principal);
  const limit = pageSize(query?.limit);
  const cursor = query?.cursor === undefined ? undefined : String(query.cursor);
  const page = await listDeliveries(em, principal.accountId, params.endpoint_id, limit, cursor);
  return { body: { data: page.deliveries.map(deliveryView), next_cursor: page.nextCursor } };
};
