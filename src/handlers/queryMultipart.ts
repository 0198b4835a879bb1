import { prepareAttachment } from '../domain/attachments/prepare.js';
import { answerQuestion } from '../domain/answering/answer-question.js';
import { toQueryResponse } from './query-response.js';
import type { Handler } from './types.js';

export const queryMultipart: Handler<'queryMultipart'> = async ({ body, em, principal, services }) => {
  const attachments = await Promise.all(body.files.map((file) => prepareAttachment(file)));
  const result = await answerQuestion(em, services, principal, {
    text: body.query,
    storeId: body.store_id,
    filters: body.filters,
    model: body.model,
    attachments,
  });
  return toQueryResponse(result);
};
