import type { EntityManager } from '@mikro-orm/postgresql';
import type { PriceTable } from '../../config.js';
import type { Plan } from '../../db/entities.js';
import type { Hit, MetadataFilters } from '../../search-index/chunks.js';
import type { SearchIndex } from '../../search-index/weaviate.js';
import type { ModelProvider, PublicModel } from '../../providers/model-provider.js';
import { ForbiddenError } from '../errors.js';
import type { Principal } from '../keys/principal.js';
import { retrieve } from '../retrieval/retrieve.js';
import { DEFAULT_STORE, readableStore } from '../stores/stores.js';
import { costUsd, countTokens } from './cost.js';
import { extractiveAnswer } from './extractive.js';
import { generativeAnswer } from './generative.js';

export interface AnsweringServices {
  index: SearchIndex;
  /** null: no provider configured; answers are extractive and retrieval is BM25 only */
  provider: ModelProvider | null;
  prices: PriceTable;
  topK: number;
}

export interface Question {
  text: string;
  storeId?: string;
  filters?: MetadataFilters;
  model?: PublicModel;
}

export interface CitationData {
  documentId: string;
  documentName: string;
  pages: number[];
  metadata: Record<string, string>;
  chunkText: string;
}

export interface AnswerData {
  answer: string;
  citations: CitationData[];
  model: PublicModel;
  tokens: number;
  costUsd: number;
}

/** The model to use: the requested one if the plan allows it, else the plan's first. */
export function resolveModel(plan: Plan, requested: PublicModel | undefined): PublicModel {
  const allowed = plan.allowedModels as PublicModel[];
  const model = requested ?? allowed[0];
  if (!model || !allowed.includes(model)) {
    throw new ForbiddenError(`Model '${model ?? ''}' is not allowed on the ${plan.name} plan. Allowed models: ${allowed.join(', ')}.`);
  }
  return model;
}

function citation(hit: Hit): CitationData {
  const { chunk } = hit;
  const metadata: Record<string, string> = {};
  for (const key of ['grade', 'subject', 'category', 'language', 'year'] as const) if (chunk[key]) metadata[key] = chunk[key];
  return { documentId: chunk.documentId, documentName: chunk.documentName, pages: chunk.pages, metadata, chunkText: chunk.chunkText };
}

export async function answerQuestion(em: EntityManager, services: AnsweringServices, principal: Principal, question: Question): Promise<AnswerData> {
  const model = resolveModel(principal.plan, question.model);
  const store = await readableStore(em, question.storeId ?? DEFAULT_STORE, principal.accountId);
  const hits = await retrieve(services.index, services.provider?.embedder ?? null, {
    store: store.id,
    question: question.text,
    filters: question.filters ?? {},
    limit: services.topK,
  });

  let drafted;
  let promptTokens: number;
  let completionTokens: number;
  if (services.provider) {
    drafted = await generativeAnswer(services.provider, model, question.text, hits);
    ({ promptTokens, completionTokens } = drafted);
  } else {
    drafted = extractiveAnswer(question.text, hits);
    // what a model would have read and written, counted with a real tokenizer
    promptTokens = countTokens(question.text) + hits.reduce((sum, h) => sum + countTokens(h.chunk.chunkText), 0);
    completionTokens = countTokens(drafted.answer);
  }
  return {
    answer: drafted.answer,
    citations: drafted.used.map((i) => citation(hits[i]!)),
    model,
    tokens: promptTokens + completionTokens,
    costUsd: costUsd(services.prices, model, promptTokens, completionTokens),
  };
}
