import { deleteDocument as remove } from '../domain/knowledge-bases/documents.js';
import type { Handler } from './types.js';

export const deleteDocument: Handler<'deleteDocument'> = async ({ em, principal, params, services }) => {
  await remove(em, services.index, principal, params.kb_id, params.document_id);
  return { status: 204, body: undefined };
};
