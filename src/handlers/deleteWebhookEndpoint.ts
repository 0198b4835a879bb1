import { checkWebhooksAllowed, deleteEndpoint } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';

export const deleteWebhookEndpoint: Handler<'deleteWebhookEndpoint'> = async ({ params, principal, em }) => {
  checkWebhooksAllowed(principal);
  await deleteEndpoint(em, principal.accountId, params.endpoint_id);
  return { status: 204, body: undefined };
};
