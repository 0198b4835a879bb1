import { checkWebhooksAllowed, listEndpoints } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const listWebhookEndpoints: Handler<'listWebhookEndpoints'> = async ({ principal, em }) => {
  checkWebhooksAllowed(principal);
  return { body: { data: (await listEndpoints(em, principal.accountId)).map(endpointView) } };
};
