import { prepareAttachment } from '../domain/attachments/prepare.js';
import { answerInShape } from './query-response.js';
import type { Handler } from './types.js';

export const queryMultipart: Handler<'queryMultipart'> = async (input) =>
  answerInShape(input, await Promise.all(input.body.files.map((file) => prepareAttachment(file))));
