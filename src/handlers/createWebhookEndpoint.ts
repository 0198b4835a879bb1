import { idempotent, requestFingerprint } from '../domain/idempotency/idempotency.js';
import { checkWebhooksAllowed, createEndpoint } from '../domain/webhooks/endpoints.js';
import { replayHeaders } from './idempotency-headers.js';
import type { Handler } from './types.js';
import { endpointView } from './webhook-views.js';

export const createWebhookEndpoint: Handler<'createWebhookEndpoint'> = async ({ body, principal, em, headers, request, services, now }) => {
  checkWebhooksAllowed(principal);
  const answer = await idempotent(
    em,
    { accountId: principal.accountId, key: headers['idempotency-key'], fingerprint: requestFingerprint(request.method, request.path, body), now },
    async (tx) => {
      const { endpoint, secret } = await createEndpoint(tx, services.webhooks.network, principal.accountId, { url: body.url, eventTypes: body.event_types, description: body.description }, now);
      return { status: 201 as const, body: { endpoint: endpointView(endpoint), secret } };
    },
  );
  // the secret is shown in this answer only: no cache may keep it
  return { status: 201, body: answer.body, headers: { 'Cache-Control': 'no-store', ...replayHeaders(answer.replayed) } };
};
