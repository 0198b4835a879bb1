import { listKnowledgeBases as list, storeFigures } from '../domain/knowledge-bases/knowledge-bases.js';
import { knowledgeBaseView } from './knowledge-base-views.js';
import type { Handler } from './types.js';

export const listKnowledgeBases: Handler<'listKnowledgeBases'> = async ({ em, principal }) => {
  const stores = await list(em, principal);
  const figures = await storeFigures(em, stores.map((s) => s.id));
  return { body: { knowledge_bases: stores.map((s) => knowledgeBaseView(s, figures.get(s.id))) } };
};
