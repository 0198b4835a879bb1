import { checkWebhooksAllowed, findEndpoint } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const getWebhookEndpoint: Handler<'getWebhookEndpoint'> = async ({ params, principal, em }) => {
  checkWebhooksAllowed(principal);
  return { body: endpointView(await findEndpoint(em, principal.accountId, params.endpoint_id)) };
};
