import { prepareAttachment } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const queryMultipart: Handler<'queryMultipart'> = async (input) => {
  const files = input.body.files ?? [];
  const attachments = files.map((file) =>
    prepareAttachment({ name: file.name, bytes: file.bytes, hints: { name: file.name, contentType: file.contentType } }, input.services.work, input.principal.keyId),
  );
  return answerInShape(input, await Promise.all(attachments));
};
