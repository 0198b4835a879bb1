import { beforeAll, describe, expect, test } from '@jest/globals';
import { connect as connectTcp, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { newKey } from './support/accounts.js';
import { apiClient, detailOf, expectSchema, sendRaw, type Schemas } from './support/contract.js';
import { rawMultipart } from './support/raw-multipart.js';
import { HASH_SECRET, startServer, type TestServer } from './support/server.js';
import { waitsForLock } from './support/locks.js';
import { hashKey } from '../../src/domain/keys/key-format.js';

// Requests built to hurt: each must get the documented error shape, quickly and in a small body,
// without a 500 and without stalling the server for everyone else.

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startServer({ authFailuresPerMinute: 5, bodyIdleMs: BODY_IDLE_MS });
  ({ key } = await newKey(server.orm, { plan: 'enterprise' }));
});

const MAX_ERROR_BODY = 64 * 1024;
/** the longest pause inside a body: short, so that a stalled body is answered quickly, yet long
 * enough that pieces sent every eighth of it still arrive in time on a busy machine */
const BODY_IDLE_MS = 4_000;

const postJson = (body: string | Uint8Array, contentType = 'application/json', apiKey = key) =>
  sendRaw(server.url, 'query', { key: apiKey, method: 'POST', headers: { 'Content-Type': contentType }, body });

function multipart(parts: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) form.append(name, value);
  return form;
}

/** The body of a raw HTTP answer, which the contract documents as `Detail` for requests the parser refuses. */
function detailBody(answer: string): unknown {
  const body: unknown = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
  expectSchema(body, 'Detail');
  return body;
}

/** The X-Request-Id of a raw HTTP answer, which every response carries (the parser's own refusals too). */
function requestIdOf(answer: string): string {
  const id = /\r\nX-Request-Id: ([^\r]*)\r\n/i.exec(answer.slice(0, answer.indexOf('\r\n\r\n') + 2))?.[1];
  expect(id).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  return id!;
}

/**
 * Sends raw bytes on a fresh connection (then what `more` writes); resolves with everything the
 * server wrote back once it closes the connection.
 */
function rawExchange(request: string | Buffer, { end = true, more }: { end?: boolean; more?: (socket: Socket) => void } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(new URL(server.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s of silence')));
    socket.write(request);
    more?.(socket);
    if (end) socket.end();
  });
}

describe('JSON bodies that cost more than their size', () => {
  test.each([
    ['100,000 levels of nesting under filters', `{"query":"x","filters":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
    ['the same under an unknown key', `{"query":"x","zzz":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ])('%s: 400 naming the depth limit', async (_, body) => {
    const res = await postJson(body);
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe('The request body is nested more than 32 levels deep.');
  });

  test.each([
    ['500,000 invalid attachments', `{"query":"x","attachments":[${Array(500_000).fill('1').join(',')}]}`],
    ['20,000 unknown keys', `{"query":"x",${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(',')}}`],
    ['an unknown key of a million characters', `{"query":"x","${'k'.repeat(1_000_000)}":1}`],
    ['the same under filters', `{"query":"x","filters":{"${'k'.repeat(1_000_000)}":1}}`],
  ])('%s: a 400 whose body stays small', async (_, body) => {
    const res = await postJson(body);
    expect(res.status).toBe(400);
    expect(res.bytes).toBeLessThan(2048);
  });

  test('a key named twice is 400 naming it (it used to keep the last value)', async () => {
    const res = await postJson('{"query":"photosynthesis","store_id":"default","store_id":"other"}');
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe("The request body names the key 'store_id' twice in the top-level object: each key may appear once.");
  });

  test('bytes that are not UTF-8 are 400 (they used to become U+FFFD)', async () => {
    const body = Buffer.concat([Buffer.from('{"query":"photo'), Buffer.from([0xff, 0xfe]), Buffer.from('synthesis"}')]);
    const res = await postJson(body);
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe('The request body is not valid UTF-8 text: send JSON encoded as UTF-8.');
  });

  const notUtf8 = (before: string, after = '') => Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from(after)]);
  test.each([
    ['query', [{ name: 'query', bytes: notUtf8('') }]],
    ['filters', [{ name: 'query', bytes: 'x' }, { name: 'filters', bytes: notUtf8('{"subject":"Bio', 'logy"}') }]],
    ['query', [{ name: 'query', bytes: notUtf8('photo', 'synthesis'), type: 'text/plain; charset=utf-8' }]],
  ])("a multipart part that is not UTF-8 is 400 naming the part '%s' (it used to become U+FFFD)", async (part, parts) => {
    const { body, contentType } = rawMultipart(parts);
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', headers: { 'Content-Type': contentType }, body });
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe(`Part '${part}' is not valid UTF-8 text: send it encoded as UTF-8.`);
  });

  const nonUtf8Name = Buffer.from([0x72, 0xe9, 0x73, 0x75, 0x6d, 0xe9, 0x2e, 0x74, 0x78, 0x74]);
  test.each([
    ['a charset busboy cannot decode (it was a 500)', [{ name: 'query', bytes: 'photosynthesis', type: 'text/plain; charset=utf-16' }], "Part 'query' names a charset the service does not read: send it as UTF-8 (the default when a part names none)."],
    ['the same on a JSON part', [{ name: 'query', bytes: 'x' }, { name: 'filters', bytes: '{}', type: 'application/json; charset=bogus' }], "Part 'filters' names a charset the service does not read: send it as UTF-8 (the default when a part names none)."],
    [
      'a file name that is not UTF-8 (it was kept with U+FFFD)',
      [{ name: 'query', bytes: 'x' }, { name: 'files', filename: nonUtf8Name, type: 'text/plain', bytes: 'notes' }],
      "The file name of part 'files' is not valid UTF-8 text: send file names encoded as UTF-8.",
    ],
    [
      'a file name with a C1 control character, by RFC 5987 (it was kept)',
      [{ name: 'query', bytes: 'x' }, { name: 'files', type: 'text/plain', bytes: 'notes', extra: "; filename*=iso-8859-1''notes%93.txt" }],
      "The file name of part 'files' contains control characters or unpaired surrogates, which no file name holds: rename the file.",
    ],
    ['a part without a name (it was "Unknown part \'undefined\'")', [{ name: null, bytes: 'x' }], /^A part has no name: each part needs Content-Disposition: form-data; name="\.\.\."/],
  ] as const)('multipart: %s is 400 saying what to send', async (_, parts, message) => {
    const { body, contentType } = rawMultipart([...parts]);
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', headers: { 'Content-Type': contentType }, body });
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toMatch(message);
  });

  test('multipart: a text part in the ISO-8859-1 it names is read as such', async () => {
    const { body, contentType } = rawMultipart([{ name: 'query', bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x70, 0x6c, 0x61, 0x6e, 0x74, 0x73]), type: 'text/plain; charset=iso-8859-1' }]);
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', headers: { 'Content-Type': contentType }, body });
    expect(res.status).toBe(200);
  });

  test('a list where a string belongs is the wrong type; only a query parameter given twice is called repeated', async () => {
    const list = await postJson('{"query":"photosynthesis","filters":{"grade":["10"]}}');
    expect([list.status, detailOf(list.body)]).toEqual([400, "Field 'filters.grade' must be of type string."]);
    const twice = await fetch(`${server.url}/api/v1/dev/knowledge-bases/default/documents?limit=2&limit=3`, { headers: { 'X-API-Key': key } });
    expect([twice.status, detailOf(await twice.json())]).toEqual([400, "Field 'limit' must be of type integer (it was given more than once: give it once)."]);
  });

  test.each(['/api/v1/dev/knowledge-bases/%FF', '/api/v1/dev/knowledge-bases/%E0%A4%A', '/dashboard/api/checkout/%', '/dashboard/api/checkout/a%zz'])(
    'a malformed percent-encoding in the path, %s, is 400 saying so (it was a 500)',
    async (path) => {
      const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(400);
      expect(detailOf(await res.json())).toMatch(/^The path has a malformed percent-encoding/);
    },
  );

  test.each(['md5sig', 'status_code', 'merchant_id'])('a notification with %s left empty is 400, and nothing is stored (it was 403, stored)', async (field) => {
    const fields: Record<string, string> = { merchant_id: '1221149', order_id: 'ord_empty', payment_id: '1', payhere_amount: '999.00', payhere_currency: 'LKR', status_code: '2', md5sig: 'X' };
    const stored = async () => (await server.orm.em.fork().execute<{ n: number }[]>("select count(*)::int as n from payment_notification where order_id = 'ord_empty'"))[0]!.n;
    const res = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...fields, [field]: '' }).toString() });
    expect(res.status).toBe(400);
    expect((res.body as Schemas['ValidationError']).errors).toEqual([expect.objectContaining({ path: `/${field}` })]);
    expect(await stored()).toBe(0);
  });

  test('a form field given twice is 400 with a JSON Pointer to the field', async () => {
    const res = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'order_id=a&order_id=b' });
    expect([res.status, detailOf(res.body)]).toEqual([400, "Field 'order_id' is given twice: send each field once."]);
    expect((res.body as Schemas['ValidationError']).errors).toEqual([{ path: '/order_id', message: 'given twice' }]);
    // a name with '/' or '~' is escaped as RFC 6901 says
    const odd = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a/b~c=1&a/b~c=2' });
    expect((odd.body as Schemas['ValidationError']).errors).toEqual([{ path: '/a~1b~0c', message: 'given twice' }]);
  });

  test('a charset other than UTF-8 is 415', async () => {
    const res = await postJson('{"query":"photosynthesis"}', 'application/json; charset=iso-8859-1');
    expect(res.status).toBe(415);
    expect(detailOf(res.body)).toMatch(/^Unsupported Content-Type 'application\/json; charset=iso-8859-1'/);
    expect((await postJson('{"query":"photosynthesis"}', 'application/json; charset=UTF-8')).status).toBe(200);
  });

  test('a multipart filters part of 4,000 [ is 400', async () => {
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', body: multipart({ query: 'x', filters: '['.repeat(4000) }) });
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe("Part 'filters' is nested more than 32 levels deep.");
  });

  test('a text part over 10,000 bytes is 400 saying so (cut, it was refused as JSON that is no object)', async () => {
    const filters = JSON.stringify({ subject: 'S'.repeat(12_000) });
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', body: multipart({ query: 'x', filters }) });
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toBe("Part 'filters' is longer than the 10000 bytes a text part may have: shorten it.");
  });
});

describe('Content-Encoding of a body: only what the contract names', () => {
  const encoded = (operationId: string, encoding: string, body: Uint8Array, contentType = 'application/json') =>
    sendRaw(server.url, operationId, { key, method: 'POST', headers: { 'Content-Type': contentType, 'Content-Encoding': encoding }, body });

  test.each(['gzip', 'GZIP', 'Gzip'])('JSON encoded as %s is read (content codings are case-insensitive)', async (encoding) => {
    const res = await encoded('query', encoding, gzipSync('{"query":"photosynthesis"}'));
    expect(res.status).toBe(200);
  });

  test.each(['br', 'zstd', 'compress'])("JSON encoded as %s is 415 naming the Content-Encoding and those accepted", async (encoding) => {
    const res = await encoded('query', encoding, Buffer.from('{"query":"photosynthesis"}'));
    expect(res.status).toBe(415);
    expect(detailOf(res.body)).toBe(`Unsupported Content-Encoding '${encoding}'. This operation accepts identity, gzip or deflate.`);
  });

  test('a multipart body with a Content-Encoding is 415: uploads are sent uncompressed', async () => {
    const { body, contentType } = rawMultipart([{ name: 'query', bytes: 'photosynthesis' }]);
    const res = await encoded('queryMultipart', 'gzip', gzipSync(body), contentType);
    expect(res.status).toBe(415);
    expect(detailOf(res.body)).toBe("Unsupported Content-Encoding 'gzip'. This operation accepts identity only: send the body uncompressed.");
    expect((await encoded('queryMultipart', 'identity', body, contentType)).status).toBe(200);
  });
});

describe('requests the HTTP parser refuses are answered in the {detail} shape', () => {
  test('headers over 16 KB: 431', async () => {
    const answer = await rawExchange(`GET /api/v1/dev/plans HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(detailBody(answer)).toEqual({ detail: 'The request line and headers are larger than the limit of 16384 bytes.' });
    // each refusal gets an id of its own
    const again = await rawExchange(`GET /api/v1/dev/plans HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(requestIdOf(again)).not.toBe(requestIdOf(answer));
  });

  test.each([
    ['a NUL in a header value', 'X-Test: a\u0000b'],
    ['a bare CR in a header value', 'X-Test: a\rb'],
  ])('%s: 400', async (_, header) => {
    const answer = await rawExchange(`GET /api/v1/dev/plans HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(detailBody(answer)).toHaveProperty('detail');
    requestIdOf(answer);
  });
});

describe('requests the API does not route', () => {
  test('a method HTTP does not define, or a body longer than its Content-Length, is 400 saying so (it blamed control characters in a header)', async () => {
    const detail = {
      detail:
        "The request's method is not an HTTP method (each operation takes GET, POST, PUT, PATCH or DELETE), or a body on this connection was longer than its Content-Length (its extra bytes were read as a request): count the body's bytes (UTF-8), not its characters.",
    };
    const answer = await rawExchange('FOO /api/v1/dev/query HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(detailBody(answer)).toEqual(detail);
    requestIdOf(answer);
    // a Content-Length that counted characters: the rest of the body reads as the next request
    const body = '{"query":"ප්‍රභාසංශ්ලේෂණය යනු කුමක්ද?"}';
    const counted = await rawExchange(`POST /api/v1/dev/query HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(counted).toContain('a body on this connection was longer than its Content-Length');
  });

  test('CONNECT is 405 in the {detail} shape, not a closed connection, with a request id (the client\'s when well formed)', async () => {
    const answer = await rawExchange('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n', { end: false });
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(detailBody(answer)).toEqual({ detail: 'CONNECT is not supported: this server is not a proxy.' });
    requestIdOf(answer);
    const own = await rawExchange('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\nX-Request-Id: tunnel-1\r\n\r\n', { end: false });
    expect(requestIdOf(own)).toBe('tunnel-1');
  });

  test('a JSON request without a body (no Content-Length) is 400 as an empty body, not 415 for its type', async () => {
    const answer = await rawExchange(`POST /api/v1/dev/query HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`, { end: false });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(detailBody(answer)).toEqual({ detail: 'The request body is not valid JSON.' });
  });
});

describe('a body whose framing the HTTP parser refuses', () => {
  test('the client gets 400, and its request is recorded as that 400, not a 500', async () => {
    const { key: own, keyId } = await newKey(server.orm, { plan: 'enterprise' });
    const answer = await rawExchange(
      `POST /api/v1/dev/query HTTP/1.1\r\nHost: x\r\nX-API-Key: ${own}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"que\r\nzz\r\n`,
      { end: false },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const rows = async () => server.orm.em.fork().execute<{ status: number | null; request_id: string }[]>('select status, request_id from request_log where api_key_id = ?', [keyId]);
    const deadline = Date.now() + 10_000;
    // the parser may answer before the request is even admitted: wait for its row and its status
    const pending = (list: { status: number | null }[]) => list.length === 0 || list.some((r) => r.status === null);
    while (pending(await rows()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // the answer names the request as its log row does, for support to find it
    expect(await rows()).toEqual([{ status: 400, request_id: requestIdOf(answer) }]);
  });
});

describe('a body whose framing the HTTP parser refuses, once its request was admitted', () => {
  test('the 400 carries the rate-limit headers, as every answer after authentication does', async () => {
    const { key: own, keyId } = await newKey(server.orm, { plan: 'enterprise' });
    const admitted = async () => {
      for (let waited = 0; waited < 10_000; waited += 50) {
        if ((await server.orm.em.fork().execute('select 1 from request_log where api_key_id = ?', [keyId])).length > 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // the body's first chunk, then, once the request counts, a chunk size that is no number
    const answer = await rawExchange(`POST /api/v1/dev/query HTTP/1.1\r\nHost: x\r\nX-API-Key: ${own}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"que\r\n`, {
      end: false,
      more: (socket) => void admitted().then(() => socket.write('zz\r\n')),
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) expect([name, new RegExp(`\r\n${name}: \\d+\r\n`).test(answer)]).toEqual([name, true]);
    expect(await recordedStatus(keyId)).toBe(400);
  });
});

/** The status recorded for the key's one request, once its outcome is written (within 10 s). */
async function recordedStatus(keyId: string): Promise<number | null> {
  const em = server.orm.em.fork();
  let status: number | null = null;
  for (let waited = 0; status === null && waited < 10_000; waited += 50) {
    const [row] = await em.execute<{ status: number | null }[]>('select status from request_log where api_key_id = ?', [keyId]);
    status = row?.status ?? null;
    if (status === null) await new Promise((r) => setTimeout(r, 50));
  }
  return status;
}

describe('a client that goes away while sending the body, or as soon as it is sent', () => {
  const MULTIPART_QUERY = '--xyz\r\nContent-Disposition: form-data; name="query"\r\n\r\nphoto';
  test.each([
    ['application/json', 'part of the body', '{"query":"photo', 300],
    ['multipart/form-data; boundary=xyz', 'part of the body', MULTIPART_QUERY, 300],
    // the whole body arrives, and the connection closes before the service reads it
    ['application/json', 'the whole body', '{"query":"photosynthesis"}', 0],
    ['multipart/form-data; boundary=xyz', 'the whole body', `${MULTIPART_QUERY}synthesis\r\n--xyz--\r\n`, 0],
  ])('%s, %s: recorded as 499 "client closed", not as a failure with a stack', async (contentType, _, body, closeAfterMs) => {
    const { key: own, keyId } = await newKey(server.orm, { plan: 'enterprise' });
    const path = contentType.startsWith('multipart') ? '/api/v1/dev/query-multipart' : '/api/v1/dev/query';
    const logsBefore = server.logs.length;
    const whole = closeAfterMs === 0;
    const length = whole ? Buffer.byteLength(body) : 100_000;
    // a whole body is read as soon as the request is admitted: the admission is held (its key's
    // lock) until the connection has closed, so that the close comes first however busy the machine
    await server.orm.em.fork().transactional(async (tx) => {
      if (whole) await tx.execute('select pg_advisory_xact_lock(20261124, hashtext(?))', [hashKey(own, HASH_SECRET)]);
      await new Promise<void>((resolve) => {
        const socket = connectTcp(Number(new URL(server.url).port), '127.0.0.1', () => {
          socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${own}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n${body}`);
          const admitting = whole ? waitsForLock(server.orm, '%authenticate_and_admit%', 'the admission') : Promise.resolve();
          void admitting.then(() => setTimeout(() => socket.destroy(), closeAfterMs));
        });
        socket.on('close', () => resolve());
        socket.on('error', () => undefined);
      });
      // the server's end of the connection sees the close before the admission goes on
      if (whole) await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(await recordedStatus(keyId)).toBe(499);
    // the request's own lines: jobs of other tests' accounts may log meanwhile
    const lines = server.logs
      .slice(logsBefore)
      .map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown; requestId?: string })
      .filter((l) => l.requestId !== undefined);
    expect(lines.some((l) => l.msg === 'client closed the connection while sending the body')).toBe(true);
    expect(lines.filter((l) => l.level >= 50 || l.err)).toEqual([]);
  });
});

describe('a body that stops arriving before its declared length', () => {
  test.each([
    ['application/json', '/api/v1/dev/query', '{"query":"photo'],
    ['multipart/form-data; boundary=xyz', '/api/v1/dev/query-multipart', '--xyz\r\nContent-Disposition: form-data; name="query"\r\n\r\nphoto'],
  ])('%s: 408 in the {detail} shape after the pause limit, the connection closed and the request recorded as 408', async (contentType, path, partial) => {
    const { key: own, keyId } = await newKey(server.orm, { plan: 'enterprise' });
    const started = Date.now();
    const answer = await rawExchange(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${own}\r\nContent-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n${partial}`, { end: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_IDLE_MS - 100);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(detailBody(answer)).toEqual({ detail: expect.stringContaining('The request body stopped arriving: no bytes came for 4 seconds.') });
    expect(await recordedStatus(keyId)).toBe(408);
  });

  test('bytes that keep coming, however slowly, are waited for', async () => {
    const body = JSON.stringify({ query: 'photosynthesis' });
    // ten pieces, each after a pause far shorter than the limit, longer than it in all
    const pieces = Array.from({ length: 10 }, (_, i) => body.slice((i * body.length) / 10, ((i + 1) * body.length) / 10));
    const answer = await rawExchange(
      `POST /api/v1/dev/query HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      { end: false, more: (socket) => pieces.forEach((piece, i) => setTimeout(() => socket.write(piece), (i + 1) * (BODY_IDLE_MS / 8))) },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('random and adversarial bodies', () => {
  test('never a 500, never a 4xx body over 64 KB, no event-loop stalls that grow with the input', async () => {
    const keys = await Promise.all(Array.from({ length: 3 }, () => newKey(server.orm, { plan: 'enterprise' })));
    let seed = 20261123;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = <T,>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const fragments = ['{', '}', '[', ']', '"', ':', ',', '\\', '\\u', 'null', 'true', '1e999', '-0', '"query"', '"filters"', '"attachments"', '"x"', ' ', '\u0000', '\ud800', 'ප්‍ර', '{"url":"https://a.lk/x.pdf"}'];
    const shapes: (() => string)[] = [
      () => Array.from({ length: 1 + Math.floor(random() * 200) }, () => pick(fragments)).join(''),
      () => `{"query":"x","filters":${'{"a":'.repeat(Math.floor(random() * 60))}1${'}'.repeat(Math.floor(random() * 60))}}`,
      () => `{"query":"${'q'.repeat(Math.floor(random() * 5000))}","attachments":[${Array(Math.floor(random() * 20_000)).fill('{}').join(',')}]}`,
      () => JSON.stringify({ query: pick(['x', '', ' ', 'ප්‍රභාසංශ්ලේෂණය', 'a'.repeat(2001)]), filters: { [pick(['subject', 'grade', 'category', 'language', 'year', 'colour'])]: pick(['Science', 10, null, [], 'french']) } }),
    ];
    // made before measuring: building them is the test's work, not the server's
    const cases = Array.from({ length: 120 }, () => ({ text: pick(shapes)(), json: random() < 0.75, filtersPart: random() < 0.5 }));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const outcomes: { status: number; size: number }[] = [];
    for (const [i, { text, json, filtersPart }] of cases.entries()) {
      const apiKey = keys[i % keys.length]!.key;
      const res = json
          ? await postJson(text, 'application/json', apiKey)
          : await sendRaw(server.url, 'queryMultipart', {
              key: apiKey,
              method: 'POST',
              body: multipart(filtersPart ? { query: 'x', filters: text } : { query: text.slice(0, 3000) }),
            });
      outcomes.push({ status: res.status, size: res.bytes });
    }
    delay.disable();
    expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
    expect(outcomes.filter((o) => o.status >= 400 && o.size > MAX_ERROR_BODY)).toEqual([]);
    // some were refused and some answered: the generator reaches both sides
    expect(outcomes.some((o) => o.status === 400)).toBe(true);
    // the server shares this process with jest: one pause of its garbage collector, or of a busy
    // machine's scheduler, can pass 100 ms by itself (CI saw 484 ms once, and a 99th percentile of
    // 174 ms once, where an idle run has under 10), so the bound on every request is the 99th
    // percentile at 250 ms (a reader whose cost grows with its input stalls for seconds, on many
    // requests), and the worst single stall only has to stay below what one such reader would cost
    // on the largest body here, seconds
    expect(delay.percentile(99) / 1e6).toBeLessThan(250);
    expect(delay.max / 1e6).toBeLessThan(1500);
  });
});

describe('failed authentication is throttled per client address', () => {
  // last in this file: it leaves 127.0.0.1 throttled for a minute
  test('past the limit, unknown keys get 429 with Retry-After before any lookup; a missing key does not count', async () => {
    const unknown = `svc_${'x'.repeat(40)}`;
    const { key: fresh } = await newKey(server.orm, { plan: 'enterprise' });
    for (let i = 0; i < 3; i++) expect((await apiClient(server.url).GET('/api/v1/dev/plans')).response.status).toBe(401);
    // the throttle is per server instance: this file's server allows 5 failures a minute
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const { response, error } = await apiClient(server.url, unknown).GET('/api/v1/dev/plans');
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(response.headers.get('x-ratelimit-limit')).toBe('5');
        expect((error as Schemas['Error']).error.message).toMatch(/^Too many failed authentication attempts from your address: at most 5 per minute/);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // a key that authenticated before keeps working from the throttled address (others behind the same NAT);
    // a key never seen here waits like a guess would
    expect((await apiClient(server.url, key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    expect((await apiClient(server.url, fresh).GET('/api/v1/dev/plans')).response.status).toBe(429);
  });
});
