import { describe, expect, test } from '@jest/globals';
import type { ErrorObject } from 'ajv';
import * as validators from '../../src/generated/request-validators.js';
import { invalidRequest } from '../../src/http/validation-message.js';

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validateQuery = (validators as unknown as Record<string, Validate>).query!;

function messageFor(body: unknown): string {
  expect(validateQuery(body)).toBe(false);
  return invalidRequest(validateQuery.errors ?? [], body).message;
}

describe('request validation messages name the field and the rule', () => {
  test('a valid request passes', () => {
    expect(validateQuery({ query: 'What is osmosis?', store_id: 'default', filters: { subject: 'Science', language: 'english' } })).toBe(true);
  });
  test.each([
    [{}, "Field 'query' is required."],
    [{ query: '   ' }, "Field 'query' must contain at least one non-whitespace character."],
    [{ query: 'x', extra: 1 }, "Unknown field 'extra': it is not part of this request."],
    [{ query: 'x', filters: { language: 'french' } }, "Field 'filters.language' must be one of: english, sinhala, tamil."],
    [{ query: 'x', filters: { grade: 10 } }, "Field 'filters.grade' must be of type string."],
    [{ query: 'x', filters: { colour: 'red' } }, "Unknown field 'filters.colour': it is not part of this request object 'filters'."],
    [{ query: 'x', model: 'gpt-4' }, "Field 'model' must be one of: svcai-fast, svcai-thinking."],
    [{ query: 'x', attachments: Array.from({ length: 6 }, () => ({ url: 'https://example.org/a.pdf' })) }, 'Too many attachments: 6 were sent, at most 5 are allowed.'],
    [[], 'The request body must be a JSON object.'],
  ])('%j', (body, message) => {
    expect(messageFor(body)).toBe(message);
  });
});
