import { describe, expect, test } from '@jest/globals';
import type { ErrorObject } from 'ajv';
import * as parameterValidators from '../../src/generated/parameter-validators.js';
import * as validators from '../../src/generated/request-validators.js';
import contract from '../../src/generated/openapi.json' with { type: 'json' };
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
    // a typo of the required field: both are named (only the missing one was)
    [{ qurey: 'x' }, "Field 'query' is required (the body has 'qurey': is it a typo of it?)."],
    [{ query: '   ' }, "Field 'query' must contain at least one non-whitespace character."],
    [{ query: 'x', extra: 1 }, "Unknown field 'extra': it is not part of this request."],
    [{ query: 'x', filters: { language: 'french' } }, "Field 'filters.language' must be one of: english, sinhala, tamil."],
    [{ query: 'x', filters: { grade: 10 } }, "Field 'filters.grade' must be of type string."],
    // a list in a body is the wrong type, not a field given twice
    [{ query: 'x', filters: { grade: ['10'] } }, "Field 'filters.grade' must be of type string."],
    [{ query: 'x', filters: { colour: 'red' } }, "Unknown field 'filters.colour': it is not part of this request object 'filters'."],
    [{ query: 'x', model: 'gpt-4' }, "Field 'model' must be one of: svcai-fast, svcai-thinking."],
    [{ query: 'x', attachments: Array.from({ length: 6 }, () => ({ url: 'https://example.org/a.pdf' })) }, 'Too many attachments: 6 were sent, at most 5 are allowed.'],
    [[], 'The request body must be a JSON object.'],
    [{ query: 'x', attachments: [{ url: 'not a url' }] }, "Field 'attachments.0.url' must be a valid uri."],
    // an internationalised address, as a browser shows it, is told how to write it
    [
      { query: 'x', attachments: [{ url: 'https://කොළඹ.lk/පාඩම.pdf' }] },
      "Field 'attachments.0.url' must be a valid uri, which is written in ASCII: give a host name in its ASCII form (xn--...) and percent-encode other characters (new URL(url).href does both).",
    ],
  ])('%j', (body, message) => {
    expect(messageFor(body)).toBe(message);
  });
});

describe("a caller's long key is cut where the answer names it", () => {
  test.each([
    [{ query: 'x', ['k'.repeat(1000)]: 1 }, `/${'k'.repeat(199)}…`, `Unknown field '${'k'.repeat(199)}…': it is not part of this request.`],
    [{ query: 'x', filters: { ['k'.repeat(1000)]: 1 } }, `/filters/${'k'.repeat(191)}…`, `Unknown field 'filters.${'k'.repeat(191)}…': it is not part of this request object 'filters'.`],
    // never inside a surrogate pair
    [{ query: 'x', [`${'k'.repeat(198)}😀😀`]: 1 }, `/${'k'.repeat(198)}…`, `Unknown field '${'k'.repeat(198)}…': it is not part of this request.`],
  ])('%#', (body, path, message) => {
    expect(validateQuery(body)).toBe(false);
    const error = invalidRequest(validateQuery.errors ?? [], body);
    expect(error.message).toBe(message);
    expect(error.data.problems?.[0]?.path).toBe(path);
  });
});

describe('messages for the other rules name them in words', () => {
  const validate = (name: string) => (validators as unknown as Record<string, Validate>)[name]!;
  const message = (name: string, body: unknown) => {
    expect(validate(name)(body)).toBe(false);
    return invalidRequest(validate(name).errors ?? [], body).message;
  };

  test('an update that names nothing to change', () => {
    expect(message('updateWebhookEndpoint', {})).toBe('The request body must name at least 1 field to change.');
  });

  test('a list that names a value twice', () => {
    expect(message('createWebhookEndpoint', { url: 'https://example.org/hook', event_types: ['api_key.created', 'api_key.created'] })).toBe(
      "Field 'event_types' lists the same value twice (items 1 and 0): list each once.",
    );
  });
});

test('a query parameter given twice says so', () => {
  const validate = (parameterValidators as unknown as Record<string, Validate>).listDocuments!;
  const values = { kb_id: 'kb_x', limit: ['2', '3'] };
  expect(validate(values)).toBe(false);
  expect(invalidRequest(validate.errors ?? [], values, { parameters: true }).message).toBe("Field 'limit' must be of type integer (it was given more than once: give it once).");
});

test('every pattern of a request in the contract is told in words, never as the regular expression', () => {
  const patterns = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const { $ref, pattern } = node as { $ref?: string; pattern?: unknown };
    if ($ref) return walk($ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], contract));
    if (typeof pattern === 'string') patterns.add(pattern);
    for (const [key, value] of Object.entries(node)) if (key !== 'examples') walk(value);
  };
  for (const item of Object.values(contract.paths)) {
    for (const operation of Object.values(item) as { requestBody?: unknown; parameters?: unknown }[]) {
      walk(operation.requestBody);
      walk(operation.parameters);
    }
  }
  expect(patterns.size).toBeGreaterThan(0);
  for (const pattern of patterns) {
    const error = { keyword: 'pattern', instancePath: '/name', schemaPath: '#/properties/name/pattern', params: { pattern } } as ErrorObject;
    expect({ pattern, message: invalidRequest([error], {}).message }).toEqual({ pattern, message: expect.not.stringMatching(/invalid format|\\/) });
  }
});

test('an unknown field is named by a JSON pointer, with ~ and / escaped', () => {
  const body = { query: 'x', 'a/b~c': 1 };
  expect(validateQuery(body)).toBe(false);
  const error = invalidRequest(validateQuery.errors ?? [], body);
  expect(error.message).toBe("Unknown field 'a/b~c': it is not part of this request.");
  expect(error.data.problems).toEqual([{ path: '/a~1b~0c', message: expect.any(String) }]);
});
