import { renameKnowledgeBase as rename, storeFigures } from '../domain/knowledge-bases/knowledge-bases.js';
import { knowledgeBaseView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const renameKnowledgeBase: Handler<'renameKnowledgeBase'> = async ({ em, principal, params, body }) => {
  const store = await rename(em, principal, params.kb_id, body.name);
  return { body: knowledgeBaseView(store, (await storeFigures(em, [store.id])).get(store.id)) };
};
