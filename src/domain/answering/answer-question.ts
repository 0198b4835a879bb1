import type { EntityManager } from '@mikro-orm/postgresql';
import type { PriceTable } from '../../config.js';
import type { Plan } from '../../db/entities.js';
import type { ImageAttachment, PreparedAttachment, TextAttachment } from '../attachments/prepare.js';
import { ForbiddenError } from '../errors.js';
import type { HeavyWork } from '../ports/heavy-work.js';
import type { Principal } from '../keys/principal.js';
import type { Model } from '../../generated/contract-values.js';
import type { Embedder } from '../ports/embedder.js';
import type { ModelProvider } from '../ports/model-provider.js';
import type { MetadataFilters, SearchIndex } from '../ports/search-index.js';
import { retrieve, type RetrievalMode } from '../retrieval/retrieve.js';
import { DEFAULT_STORE, readableStore } from '../stores/stores.js';
import { costUsd, countTokensOf } from './cost.js';
import { extractiveAnswer } from './extractive.js';
import { generativeAnswer } from './generative.js';
import { fromAttachment, fromHit, type Passage } from './passage.js';

export interface AnsweringServices {
  index: SearchIndex;
  /** null: no provider configured; answers are extractive */
  provider: ModelProvider | null;
  /** null: no embeddings endpoint configured; retrieval is BM25 only */
  embedder: Embedder | null;
  prices: PriceTable;
  topK: number;
  /** runs the CPU-heavy steps (token counting here) off the event loop */
  work: HeavyWork;
}

export interface Question {
  text: string;
  storeId?: string;
  filters?: MetadataFilters;
  model?: Model;
  attachments?: PreparedAttachment[];
}

export interface CitationData {
  documentId: string;
  documentName: string;
  pages: number[];
  metadata: Record<string, string> | null;
  chunkText: string;
}

export interface AnswerData {
  answer: string;
  citations: CitationData[];
  model: Model;
  tokens: number;
  costUsd: number;
  retrievalMode: RetrievalMode;
}

/** The model to use: the requested one if the plan allows it, else the plan's first. */
export function resolveModel(plan: Plan, requested: Model | undefined): Model {
  const allowed = plan.allowedModels as Model[];
  const model = requested ?? allowed[0];
  if (!model || !allowed.includes(model)) {
    throw new ForbiddenError(`Model '${model ?? ''}' is not allowed on the ${plan.name} plan. Allowed models: ${allowed.join(', ')}.`);
  }
  return model;
}

function citation(passage: Passage): CitationData {
  return { documentId: passage.documentId, documentName: passage.documentName, pages: passage.pages, metadata: passage.metadata, chunkText: passage.text };
}

/** How much of each attached text joins the question when searching the store. */
const STEERING_CHARS = 500;

function unreadImagesNote(images: ImageAttachment[]): string {
  const names = images.map((i) => `'${i.name}'`).join(', ');
  return `The attached image${images.length > 1 ? 's' : ''} ${names} could not be read: this service has no image-capable model configured. The answer uses the text only.`;
}

export async function answerQuestion(em: EntityManager, services: AnsweringServices, principal: Principal, question: Question): Promise<AnswerData> {
  const model = resolveModel(principal.plan, question.model);
  const store = await readableStore(em, question.storeId ?? DEFAULT_STORE, principal);
  const attachments = question.attachments ?? [];
  const texts = attachments.filter((a): a is TextAttachment => a.kind === 'text');
  const images = attachments.filter((a): a is ImageAttachment => a.kind === 'image');

  // attached text steers the search as well as joining the context
  const steering = texts.map((t) => t.pages.map((p) => p.text).join(' ').slice(0, STEERING_CHARS)).join(' ');
  const { hits, mode: retrievalMode } = await retrieve(services.index, services.embedder, {
    store: store.id,
    question: `${question.text} ${steering}`.trim(),
    filters: question.filters ?? {},
    limit: services.topK,
  });
  const passages = [...texts.flatMap(fromAttachment), ...hits.map(fromHit)];
  const provider = services.provider;
  const readImages = provider?.acceptsImages ? images : [];

  let drafted;
  let promptTokens: number;
  let completionTokens: number;
  if (provider) {
    drafted = await generativeAnswer(provider, model, question.text, passages, readImages);
    ({ promptTokens, completionTokens } = drafted);
  } else {
    drafted = extractiveAnswer(question.text, passages);
    // what a model would have read and written, counted with a real tokenizer, off the event loop
    const [answerTokens = 0, ...read] = await countTokensOf(services.work, principal.keyId, [drafted.answer, question.text, ...passages.map((p) => p.text)]);
    promptTokens = read.reduce((sum, n) => sum + n, 0);
    completionTokens = answerTokens;
  }
  const unread = images.filter((i) => !readImages.includes(i));
  const answer = unread.length ? `${drafted.answer}\n\n${unreadImagesNote(unread)}` : drafted.answer;
  promptTokens += images.reduce((sum, i) => sum + i.tokens, 0);
  return {
    answer,
    citations: drafted.used.map((i) => citation(passages[i]!)),
    model,
    tokens: promptTokens + completionTokens,
    costUsd: costUsd(services.prices, model, promptTokens, completionTokens),
    retrievalMode,
  };
}
