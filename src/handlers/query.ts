import { downloadAttachment } from '../domain/attachments/download.js';
import { prepareAttachment } from '../domain/attachments/prepare.js';
import { answerQuestion } from '../domain/answering/answer-question.js';
import { toQueryResponse } from './query-response.js';
import type { Handler } from './types.js';

export const query: Handler<'query'> = async ({ body, em, principal, services }) => {
  const downloaded = await Promise.all((body.attachments ?? []).map((a) => downloadAttachment(services.fetchAttachment, a)));
  const attachments = await Promise.all(downloaded.map((raw) => prepareAttachment(raw)));
  const result = await answerQuestion(em, services, principal, {
    text: body.query,
    storeId: body.store_id,
    filters: body.filters,
    model: body.model,
    attachments,
  });
  return toQueryResponse(result);
};
