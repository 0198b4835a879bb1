import type { components } from '../generated/api-types.js';
import type { AnswerData } from '../domain/answering/answer-question.js';
import type { HandlerOutput } from './types.js';

type QueryResponse = components['schemas']['QueryResponse'];

/** The response shape shared by the JSON and multipart query operations. */
export function toQueryResponse(result: AnswerData): HandlerOutput<'query'> & HandlerOutput<'queryMultipart'> {
  const body: QueryResponse = {
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
  return { body, usage: { model: result.model, tokens: result.tokens, costUsd: result.costUsd } };
}
