import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { pbkdf2 } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { promisify } from 'node:util';
import { dnsResolver } from '../../src/domain/attachments/safe-fetch.js';

// A name server on a local UDP port standing in for the internet's: it answers each query by the
// first label of the name asked (a.…: an address, nx.…: no such name, fail.…: a server failure)
// and never answers silent.…, as a hostile name server may.
let server: Socket;
let servers: string[];

function answer(query: Buffer): Buffer | null {
  // the question's first label: length byte at offset 12
  const label = query.subarray(13, 13 + query[12]!).toString();
  if (label === 'silent') return null;
  const header = Buffer.from(query.subarray(0, 12));
  header[2] = 0x80 | (header[2]! & 0x01); // a response, recursion desired as asked
  header[3] = 0x80 | (label === 'nx' ? 3 : label === 'fail' ? 2 : 0); // recursion available, rcode
  const type = query.readUInt16BE(query.length - 4);
  const addressed = label === 'a' && type === 1;
  header.writeUInt16BE(addressed ? 1 : 0, 6);
  const question = query.subarray(12);
  if (!addressed) return Buffer.concat([header, question]);
  // the name by pointer to the question, type A, class IN, TTL 60, 4 bytes: 93.184.216.34
  const record = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34]);
  return Buffer.concat([header, question, record]);
}

beforeAll(async () => {
  server = createSocket('udp4');
  server.on('message', (query, from) => {
    const reply = answer(query);
    if (reply) server.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  servers = [`127.0.0.1:${server.address().port}`];
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the attachment and webhook resolver', () => {
  test('gives the addresses a name server answers', async () => {
    expect(await dnsResolver(servers)('a.files.example')).toEqual(['93.184.216.34']);
  });

  test('fails as dns.lookup does: no such name is ENOTFOUND, a failing server EAI_AGAIN', async () => {
    await expect(dnsResolver(servers)('nx.files.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(dnsResolver(servers)('fail.files.example')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
  });

  test('a name server that never answers holds no thread of the shared pool, and the lookup ends with its request', async () => {
    const controller = new AbortController();
    let settled = 0;
    // more silent lookups than libuv has threads (4): getaddrinfo would hold them all until it gave up
    const lookups = Array.from({ length: 8 }, () =>
      dnsResolver(servers)('silent.files.example', controller.signal).then(
        () => settled++,
        (error: unknown) => (settled++, error),
      ),
    );
    // work on the shared pool (as password hashing is) is done while every lookup still waits
    await Promise.all(Array.from({ length: 8 }, () => promisify(pbkdf2)('password', 'salt', 1, 32, 'sha256')));
    expect(settled).toBe(0);
    controller.abort();
    // ended by the request's signal, not by a timeout of the name server
    expect((await Promise.all(lookups)).map((e) => (e as Error).name)).toEqual(Array(8).fill('AbortError'));
  });
});
