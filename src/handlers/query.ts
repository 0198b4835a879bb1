import { downloadAll } from '../domain/attachments/download.js';
import { prepareAll } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const query: Handler<'query'> = (input) => {
  const attachments = input.body.attachments ?? [];
  return answerInShape(input, attachments.length, async () =>
    prepareAll(await downloadAll(input.services.fetchAttachment, attachments, input.signal), input.services.work, input.principal.accountId, input.signal),
  );
};
