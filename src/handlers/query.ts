import { downloadAll } from '../domain/attachments/download.js';
import { prepareAll } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const query: Handler<'query'> = async (input) => {
  const downloaded = await downloadAll(input.services.fetchAttachment, input.body.attachments ?? [], input.signal);
  return answerInShape(input, await prepareAll(downloaded, input.services.work, input.principal.keyId, input.signal));
};
