import { redeliver } from '../domain/webhooks/deliveries.js';
import { checkWebhooksAllowed } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { deliveryView } from './webhook-views.js';

export const redeliverWebhook: Handler<'redeliverWebhook'> = async ({ params, principal, em, now }) => {
  checkWebhooksAllowed(principal);
  return { status: 202, body: deliveryView(await redeliver(em, principal.accountId, params.endpoint_id, params.delivery_id, now)) };
};
