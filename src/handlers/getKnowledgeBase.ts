import { knowledgeBaseFor, storeFigures } from '../domain/knowledge-bases/knowledge-bases.js';
import { knowledgeBaseView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const getKnowledgeBase: Handler<'getKnowledgeBase'> = async ({ em, principal, params }) => {
  const store = await knowledgeBaseFor(em, params.kb_id, principal, 'read');
  return { body: knowledgeBaseView(store, (await storeFigures(em, [store.id])).get(store.id)) };
};
