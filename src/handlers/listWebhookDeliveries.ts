import { listDeliveries } from '../domain/webhooks/deliveries.js';
import { checkWebhooksAllowed } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { deliveryView } from './webhook-views.js';

// `limit` arrives checked by the contract (a whole number from 1 to 100, 20 when absent)
export const listWebhookDeliveries: Handler<'listWebhookDeliveries'> = async ({ params, query, principal, em }) => {
  checkWebhooksAllowed(principal);
  const { limit = 20, cursor } = query ?? {};
  const page = await listDeliveries(em, principal.accountId, params.endpoint_id, limit, cursor);
  return { body: { data: page.deliveries.map(deliveryView), next_cursor: page.nextCursor } };
};
