import type { components } from '../generated/api-types.js';
import { answerQuestion } from '../domain/answering/answer-question.js';
import type { PreparedAttachment } from '../domain/attachments/prepare.js';
import type { HandlerInput, HandlerOutput } from './types.js';

type QueryResponse = components['schemas']['QueryResponse'];

/** Answers a question of either query operation, once its attachments are read, in the shared response shape. */
export async function answerInShape(
  { body, em, principal, services }: HandlerInput<'query'> | HandlerInput<'queryMultipart'>,
  attachments: PreparedAttachment[],
): Promise<HandlerOutput<'query'> & HandlerOutput<'queryMultipart'>> {
  const result = await answerQuestion(em, services, principal, {
    text: body.query,
    storeId: body.store_id,
    filters: body.filters,
    model: body.model,
    attachments,
  });
  const response: QueryResponse = {
    answer: result.answer,
    citations: result.citations.map((c) => ({
      document_id: c.documentId,
      document_name: c.documentName,
      pages: c.pages,
      metadata: c.metadata,
      chunk_text: c.chunkText,
    })),
    has_citations: result.citations.length > 0,
  };
  return {
    body: response,
    usage: { model: result.model, tokens: result.tokens, costUsd: result.costUsd },
    headers: { 'X-Retrieval-Mode': result.retrievalMode },
  };
}
