import { prepareAll } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const queryMultipart: Handler<'queryMultipart'> = (input) => {
  const raws = (input.body.files ?? []).map((file) => ({ name: file.name, bytes: file.bytes, hints: { name: file.name, contentType: file.contentType } }));
  return answerInShape(input, raws.length, () => prepareAll(raws, input.services.work, input.principal.accountId, input.signal));
};
