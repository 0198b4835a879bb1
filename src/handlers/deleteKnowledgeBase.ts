import { deleteKnowledgeBase as remove } from '../domain/knowledge-bases/knowledge-bases.js';
import type { Handler } from './types.js';

export const deleteKnowledgeBase: Handler<'deleteKnowledgeBase'> = async ({ em, principal, params, services }) => {
  await remove(em, services.index, principal, params.kb_id);
  return { status: 204, body: undefined };
};
