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
import { sentenceSpans } from '../text/sentences.js';
import { DEFAULT_STORE, readableStore } from '../stores/stores.js';
import { costUsd, countTokensOf } from './cost.js';
import { answerByMeaning, rememberingQuestion, type Meaning } from './by-meaning.js';
import { canGenerate, generativeAnswer, promptFor, type Generated } from './generative.js';
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

/** What a request used: the model, its tokens and their cost. */
export interface AnswerUsage {
  model: Model;
  tokens: number;
  costUsd: number;
  retrievalMode: RetrievalMode;
}

export interface AnswerData extends AnswerUsage {
  answer: string;
  citations: CitationData[];
  /** Milliseconds of the retrieval (the store's check, the question's embedding, the search) and of the answer. */
  phases: { retrievalMs: number; answerMs: number };
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

/** What an answer is made from: the model, the passages found for the question, and its images. */
interface Material {
  model: Model;
  passages: Passage[];
  images: ImageAttachment[];
  /** the images the provider reads (none without an image-capable provider) */
  readImages: ImageAttachment[];
  retrievalMode: RetrievalMode;
  /** the question's vector from retrieval, for ranking answer sentences by meaning (null: BM25 only, or attached text joined the question) */
  meaning: Meaning | null;
}

/**
 * Refuses a question its key may not ask (a model outside its plan, a store it may not read), as
 * answering it would: the query operations call it before fetching or reading any attachment.
 */
export async function checkQuestion(em: EntityManager, principal: Principal, question: Pick<Question, 'model' | 'storeId'>): Promise<void> {
  resolveModel(principal.plan, question.model);
  await readableStore(em, question.storeId ?? DEFAULT_STORE, principal);
}

async function gather(em: EntityManager, services: AnsweringServices, principal: Principal, question: Question): Promise<Material> {
  const model = resolveModel(principal.plan, question.model);
  const storeId = question.storeId ?? DEFAULT_STORE;
  const attachments = question.attachments ?? [];
  const texts = attachments.filter((a): a is TextAttachment => a.kind === 'text');
  const images = attachments.filter((a): a is ImageAttachment => a.kind === 'image');

  // attached text steers the search as well as joining the context
  const steering = texts.map((t) => t.pages.map((p) => p.text).join(' ').slice(0, STEERING_CHARS)).join(' ');
  // the store's access is checked before anything of it is searched: a search of another
  // account's store would cost its embeddings call and could tell by its timing that it exists
  await readableStore(em, storeId, principal);
  const embedder = services.embedder && rememberingQuestion(services.embedder);
  const { hits, mode: retrievalMode } = await retrieve(services.index, embedder, {
    store: storeId,
    question: `${question.text} ${steering}`.trim(),
    filters: question.filters ?? {},
    limit: services.topK,
  });
  const passages = [...texts.flatMap(fromAttachment), ...hits.map(fromHit)];
  // the vector retrieval used, when it is the question's alone
  const vector = steering === '' ? embedder?.question() : undefined;
  const meaning = services.embedder && vector ? { embedder: services.embedder, question: vector } : null;
  return { model, passages, images, readImages: services.provider?.acceptsImages ? images : [], retrievalMode, meaning };
}

/** The drafted answer and its token counts: provider-reported, else counted as a model would have read and written. */
async function draft(services: AnsweringServices, principal: Principal, question: Question, material: Material, signal: AbortSignal): Promise<Generated> {
  const { model, passages, readImages } = material;
  if (services.provider) return generativeAnswer(services.provider, model, question.text, passages, readImages, signal);
  const drafted = await answerByMeaning(question.text, passages, material.meaning);
  // counted with a real tokenizer, off the event loop
  const [answerTokens = 0, ...read] = await countTokensOf(services.work, principal.accountId, [drafted.answer, question.text, ...passages.map((p) => p.text)]);
  return { ...drafted, promptTokens: read.reduce((sum, n) => sum + n, 0), completionTokens: answerTokens };
}

/** What follows the drafted text when some images could not be read ('' when none). */
function unreadNote({ images, readImages }: Material): string {
  const unread = images.filter((i) => !readImages.includes(i));
  return unread.length ? `\n\n${unreadImagesNote(unread)}` : '';
}

/** The request's tokens and cost: an image adds its tokens only when the model was sent it (readImages). */
function usageOf(services: AnsweringServices, { model, readImages, retrievalMode }: Material, promptTokens: number, completionTokens: number): AnswerUsage {
  const prompt = promptTokens + readImages.reduce((sum, i) => sum + i.tokens, 0);
  return { model, tokens: prompt + completionTokens, costUsd: costUsd(services.prices, model, prompt, completionTokens), retrievalMode };
}

/** The answer to `question`; a caller that goes away (`signal`) stops the provider's work. */
export async function answerQuestion(em: EntityManager, services: AnsweringServices, principal: Principal, question: Question, signal: AbortSignal): Promise<AnswerData> {
  const started = performance.now();
  const material = await gather(em, services, principal, question);
  const gathered = performance.now();
  const drafted = await draft(services, principal, question, material, signal);
  return {
    answer: `${drafted.answer}${unreadNote(material)}`,
    citations: drafted.used.map((i) => citation(material.passages[i]!)),
    ...usageOf(services, material, drafted.promptTokens, drafted.completionTokens),
    phases: { retrievalMs: gathered - started, answerMs: performance.now() - gathered },
  };
}

export type AnswerEvent = { type: 'citations'; citations: CitationData[]; retrievalMode: RetrievalMode } | { type: 'text'; text: string };

/**
 * The answer of answerQuestion, as it is produced: its citations first, then its text in pieces
 * that join into the same answer, then (returned) its usage. Everything that can refuse the
 * question (model, store, retrieval, a provider that refuses the request) happens before the
 * first event. With a provider, the text comes as the provider writes it, and the citations are
 * every passage it is given, in the numbering its `[n]` markers use: which of them it cites is
 * only known at the end. Otherwise the drafted answer comes a sentence at a time.
 */
export async function* streamAnswer(
  em: EntityManager,
  services: AnsweringServices,
  principal: Principal,
  question: Question,
  signal: AbortSignal,
): AsyncGenerator<AnswerEvent, AnswerUsage, undefined> {
  const material = await gather(em, services, principal, question);
  const { model, passages, readImages } = material;
  let promptTokens: number;
  let completionTokens: number;
  if (services.provider && canGenerate(passages, readImages)) {
    const completion = await services.provider.stream(model, promptFor(question.text, passages, readImages), signal);
    yield { type: 'citations', citations: passages.map(citation), retrievalMode: material.retrievalMode };
    let step = await completion.next();
    for (; !step.done; step = await completion.next()) yield { type: 'text', text: step.value };
    ({ promptTokens, completionTokens } = step.value);
  } else {
    const drafted = await draft(services, principal, question, material, signal);
    yield { type: 'citations', citations: drafted.used.map((i) => citation(passages[i]!)), retrievalMode: material.retrievalMode };
    for (const piece of sentencePieces(drafted.answer)) yield { type: 'text', text: piece };
    ({ promptTokens, completionTokens } = drafted);
  }
  const note = unreadNote(material);
  if (note) yield { type: 'text', text: note };
  return usageOf(services, material, promptTokens, completionTokens);
}

/** The text cut after each sentence: the pieces join into the text again, spaces included. */
function sentencePieces(text: string): string[] {
  // the last piece runs to the end of the text, whatever follows its last sentence
  const ends = [...sentenceSpans(text).slice(0, -1).map((span) => span.end), text.length];
  return ends.map((end, i) => text.slice(i === 0 ? 0 : ends[i - 1], end)).filter((piece) => piece !== '');
}
