import { listEndpoints } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

// on every plan, like deleteWebhookEndpoint: an account moved to a plan without webhooks can still find and remove its endpoints
export const listWebhookEndpoints: Handler<'listWebhookEndpoints'> = async ({ principal, em }) => {
  return { body: { data: (await listEndpoints(em, principal.accountId)).map(endpointView) } };
};
