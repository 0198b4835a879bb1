import { idempotent, requestFingerprint } from '../domain/idempotency/idempotency.js';
import { addDocument } from '../domain/knowledge-bases/documents.js';
import { queueIngestion } from '../domain/knowledge-bases/ingestion-job.js';
import type { IngestionJob } from '../domain/knowledge-bases/documents.js';
import { replayHeaders } from './idempotency-headers.js';
import { documentView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const uploadDocument: Handler<'uploadDocument'> = async ({ em, principal, params, body, headers, request, now, services }) => {
  let job: IngestionJob | undefined;
  const answer = await idempotent(
    em,
    { accountId: principal.accountId, key: headers['idempotency-key'], fingerprint: requestFingerprint(request.method, request.path, body), now },
    async (tx) => {
      const added = await addDocument(tx, principal, params.kb_id, body, now);
      job = added.job;
      return { status: 202 as const, body: documentView(added.document) };
    },
  );
  // queued once the document is committed; a stop before this is made good by the worker's sweep
  if (job) await queueIngestion(services.jobs, job);
  return { status: 202, body: answer.body, headers: replayHeaders(answer.replayed) };
};
