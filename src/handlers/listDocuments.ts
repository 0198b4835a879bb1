import { listDocuments as list } from '../domain/knowledge-bases/documents.js';
import { documentView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const listDocuments: Handler<'listDocuments'> = async ({ em, principal, params, query }) => {
  const { limit = 20, cursor, state, subject, grade, category, language, year } = query ?? {};
  const page = await list(em, principal, params.kb_id, { limit, cursor, state, metadata: { subject, grade, category, language, year } });
  return { body: { documents: page.documents.map(documentView), next_cursor: page.nextCursor } };
};
