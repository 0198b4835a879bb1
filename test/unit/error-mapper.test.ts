import { describe, expect, test } from '@jest/globals';
import { ERROR_CODES, InvalidRequestError, LimitExceededError, ServiceError, UpstreamError } from '../../src/domain/errors.js';
import { UnsafeUrlError } from '../../src/domain/attachments/address-policy.js';
import { UnreadableDocumentError } from '../../src/domain/documents/extract.js';
import { mapError } from '../../src/http/error-mapper.js';
import { ERROR_TABLE } from '../../src/http/error-table.js';
import { MethodNotAllowedError, PayloadTooLargeError } from '../../src/http/http-errors.js';

describe('mapError', () => {
  test.each(ERROR_CODES.map((code) => [code]))('%s answers its row of the table, with the message', (code) => {
    const mapped = mapError(new ServiceError(code, 'What to do.'), 'req-1');
    expect(mapped.status).toBe(ERROR_TABLE[code].status);
    expect(mapped.body).toEqual(ERROR_TABLE[code].shape === 'error' ? { error: { code, message: 'What to do.' } } : { detail: 'What to do.' });
  });

  test('the {error} shape is kept for 401, 403 and 429; everything else is {detail}', () => {
    const errorShaped = ERROR_CODES.filter((code) => ERROR_TABLE[code].shape === 'error').map((code) => ERROR_TABLE[code].status);
    expect(new Set(errorShaped)).toEqual(new Set([401, 403, 429]));
  });

  test('limits: quota vs rate limit by kind, with Retry-After', () => {
    expect(mapError(new LimitExceededError('month', 86400, 'Monthly quota exceeded.'), 'r')).toEqual({
      status: 429,
      body: { error: { code: 'quota_exceeded', message: 'Monthly quota exceeded.' } },
      headers: { 'Retry-After': '86400' },
    });
    expect(mapError(new LimitExceededError('minute', 12, 'Rate limit exceeded.'), 'r').body).toEqual({
      error: { code: 'rate_limit_exceeded', message: 'Rate limit exceeded.' },
    });
  });

  test('field problems follow the detail; Allow and Connection headers come from the data', () => {
    const problems = [{ path: '/query', message: "Field 'query' is required." }];
    expect(mapError(new InvalidRequestError("Field 'query' is required.", problems), 'r').body).toEqual({ detail: "Field 'query' is required.", errors: problems });
    expect(mapError(new MethodNotAllowedError('Method PUT is not allowed.', ['GET', 'POST']), 'r').headers).toEqual({ Allow: 'GET, POST' });
    expect(mapError(new PayloadTooLargeError(10), 'r')).toMatchObject({ status: 413, headers: { Connection: 'close' } });
  });

  test('errors of the domain modules carry codes of the one vocabulary', () => {
    expect(mapError(new UnsafeUrlError('http://127.0.0.1/'), 'r').status).toBe(400);
    expect(mapError(new UnreadableDocumentError('x.pdf is empty'), 'r')).toEqual({ status: 400, body: { detail: 'x.pdf is empty' } });
    expect(mapError(new UpstreamError('search index'), 'r')).toEqual({
      status: 502,
      body: { detail: 'The search index answered with an error. The request was counted; please retry.' },
    });
  });

  test('a database that cannot be reached, or that ended a transaction meeting another, is 503; anything unexpected is 500 quoting the request id', () => {
    expect(mapError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'r')).toEqual({
      status: 503,
      body: { detail: 'The database is temporarily unavailable. Please retry shortly.' },
    });
    // PostgreSQL ended the transaction, which met another (a deadlock, a serialisation failure): retrying succeeds
    for (const code of ['40P01', '40001']) {
      const ended = Object.assign(new Error('deadlock detected'), { code });
      for (const error of [ended, new Error('the flush failed', { cause: ended })]) {
        expect(mapError(error, 'r')).toEqual({
          status: 503,
          body: { detail: 'The request met another change to the same records at the same moment, and its change was not made. Please retry.' },
        });
      }
    }
    // a constraint violated is no conflict to retry
    expect(mapError(Object.assign(new Error('violates foreign key constraint'), { code: '23503' }), 'r').status).toBe(500);
    expect(mapError(new TypeError('x is undefined'), 'req-42')).toEqual({
      status: 500,
      body: { detail: 'Internal server error. Quote request id req-42 when contacting support.' },
    });
  });
});
