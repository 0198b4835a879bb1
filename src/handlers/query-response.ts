import type { components } from '../generated/api-types.js';
import { answerQuestion, checkQuestion, streamAnswer, type AnswerUsage, type CitationData, type Question } from '../domain/answering/answer-question.js';
import type { PreparedAttachment } from '../domain/attachments/prepare.js';
import { DEFAULT_STORE } from '../domain/stores/stores.js';
import type { HandlerInput, HandlerOutput, RequestUsage, ServerSentEvent } from './types.js';

type Schemas = components['schemas'];
type QueryEvent = ServerSentEvent<'query'> &
  (
    | { event: 'citations'; data: Schemas['QueryCitationsData'] }
    | { event: 'delta'; data: Schemas['QueryDeltaData'] }
    | { event: 'usage'; data: Schemas['QueryUsageData'] }
  );

function toCitation(c: CitationData): Schemas['Citation'] {
  return { document_id: c.documentId, document_name: c.documentName, pages: c.pages, metadata: c.metadata, chunk_text: c.chunkText };
}

function toUsage(usage: AnswerUsage, storeId: string): RequestUsage {
  return { model: usage.model, tokens: usage.tokens, costUsd: usage.costUsd, storeId };
}

/**
 * Answers a question of either query operation in the shared response shape (JSON or events), its
 * `attachments` (as many as `sent`) read first. A question its key may not ask is refused before
 * any of them is fetched or read: they may take seconds of downloads and of the worker pool.
 */
export async function answerInShape(
  input: HandlerInput<'query'> | HandlerInput<'queryMultipart'>,
  sent: number,
  attachments: () => Promise<PreparedAttachment[]>,
): Promise<HandlerOutput<'query'> & HandlerOutput<'queryMultipart'>> {
  const { body, em, principal, services } = input;
  const asked = { text: body.query, storeId: body.store_id, filters: body.filters, model: body.model };
  if (sent > 0) await checkQuestion(em, principal, asked);
  const question: Question = { ...asked, attachments: sent > 0 ? await attachments() : [] };
  const storeId = body.store_id ?? DEFAULT_STORE;
  if (input.eventStream) return { events: eventsOf(streamAnswer(em, services, principal, question, input.signal), storeId) };
  const result = await answerQuestion(em, services, principal, question, input.signal);
  const citations = result.citations.map(toCitation);
  return {
    body: { answer: result.answer, citations, has_citations: citations.length > 0 },
    usage: toUsage(result, storeId),
    headers: { 'X-Retrieval-Mode': result.retrievalMode },
    timings: [
      { name: 'retrieval', ms: result.phases.retrievalMs },
      { name: 'answer', ms: result.phases.answerMs },
    ],
  };
}

async function* eventsOf(answer: ReturnType<typeof streamAnswer>, storeId: string): AsyncGenerator<QueryEvent, RequestUsage, undefined> {
  let step = await answer.next();
  for (; !step.done; step = await answer.next()) {
    const part = step.value;
    if (part.type === 'citations') {
      const citations = part.citations.map(toCitation);
      yield { event: 'citations', data: { citations, has_citations: citations.length > 0 }, headers: { 'X-Retrieval-Mode': part.retrievalMode } };
    } else yield { event: 'delta', data: { text: part.text } };
  }
  const usage = step.value;
  yield { event: 'usage', data: { model: usage.model, tokens: usage.tokens, cost_usd: usage.costUsd } };
  return toUsage(usage, storeId);
}
