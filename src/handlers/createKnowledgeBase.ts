import { idempotent, requestFingerprint } from '../domain/idempotency/idempotency.js';
import { createKnowledgeBase as create } from '../domain/knowledge-bases/knowledge-bases.js';
import { knowledgeBaseView } from './knowledge-base-views.js';
import { replayHeaders } from './idempotency-headers.js';
import type { Handler } from './types.js';

export const createKnowledgeBase: Handler<'createKnowledgeBase'> = async ({ em, principal, body, headers, request, now }) => {
  const answer = await idempotent(
    em,
    { accountId: principal.accountId, key: headers['idempotency-key'], fingerprint: requestFingerprint(request.method, request.path, body), now },
    async (tx) => ({ status: 201 as const, body: knowledgeBaseView(await create(tx, principal, body.name, now)) }),
  );
  return { status: 201, body: answer.body, headers: replayHeaders(answer.replayed) };
};
