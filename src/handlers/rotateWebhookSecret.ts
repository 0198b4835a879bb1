import { checkWebhooksAllowed, rotateSecret } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const rotateWebhookSecret: Handler<'rotateWebhookSecret'> = async ({ params, principal, em, now }) => {
  checkWebhooksAllowed(principal);
  const { endpoint, secret } = await rotateSecret(em, principal.accountId, params.endpoint_id, now);
  // the new secret is shown in this answer only: no cache may keep it
  return { body: { endpoint: endpointView(endpoint), secret }, headers: { 'Cache-Control': 'no-store' } };
};
