import { getDocument as get } from '../domain/knowledge-bases/documents.js';
import { documentView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const getDocument: Handler<'getDocument'> = async ({ em, principal, params }) => ({
  body: documentView(await get(em, principal, params.kb_id, params.document_id)),
});
