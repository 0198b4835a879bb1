import { checkWebhooksAllowed, createEndpoint } from '../domain/webhooks/endpoints.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const createWebhookEndpoint: Handler<'createWebhookEndpoint'> = async ({ body, principal, em, services, now }) => {
  checkWebhooksAllowed(principal);
  const { endpoint, secret } = await createEndpoint(em, services.webhooks.network, principal.accountId, { url: body.url, eventTypes: body.event_types, description: body.description }, now);
  return { status: 201, body: { endpoint: endpointView(endpoint), secret } };
};
