import { downloadAll } from '../domain/attachments/download.js';
import { prepareAttachment } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const query: Handler<'query'> = async (input) => {
  const downloaded = await downloadAll(input.services.fetchAttachment, input.body.attachments ?? []);
  return answerInShape(input, await Promise.all(downloaded.map((raw) => prepareAttachment(raw, input.services.work, input.principal.keyId))));
};
