import { replaceDocumentFile } from '../domain/knowledge-bases/documents.js';
import { queueIngestion } from '../domain/knowledge-bases/ingestion-job.js';
import { documentView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const replaceDocument: Handler<'replaceDocument'> = async ({ em, principal, params, body, now, services }) => {
  const replaced = await em.transactional((tx) => replaceDocumentFile(tx, principal, params.kb_id, params.document_id, body, now));
  await queueIngestion(services.jobs, replaced.job);
  return { status: 202, body: documentView(replaced.document) };
};
