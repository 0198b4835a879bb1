import { deleteEndpoint } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';

// on every plan: endpoints made on Pro or Enterprise can be removed after a move to a plan without webhooks
export const deleteWebhookEndpoint: Handler<'deleteWebhookEndpoint'> = async ({ params, principal, em }) => {
  await deleteEndpoint(em, principal.accountId, params.endpoint_id);
  return { status: 204, body: undefined };
};
