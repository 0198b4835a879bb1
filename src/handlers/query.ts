import { answerQuestion } from '../domain/answering/answer-question.js';
import { toQueryResponse } from './query-response.js';
import type { Handler } from './types.js';

export const query: Handler<'query'> = async ({ body, em, principal, services }) => {
  const result = await answerQuestion(em, services, principal, {
    text: body.query,
    storeId: body.store_id,
    filters: body.filters,
    model: body.model,
  });
  return toQueryResponse(result);
};
