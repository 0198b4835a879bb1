import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { newKey } from './support/accounts.js';
import { apiClient, detailOf, expectDocumented, sendRaw, type ApiResponse, type Schemas } from './support/contract.js';
import { startFakeOpenAi, type FakeOpenAi } from './support/fake-openai.js';
import { startServer, testServices, type TestServer } from './support/server.js';
import { startServerProcess } from './support/server-process.js';

let server: TestServer;
let key: string;
let keyId: string;
const fixture = (name: string) => readFile(`test/fixtures/${name}`);

interface Upload {
  name: string;
  bytes: Uint8Array;
  type?: string;
}

function form(parts: Record<string, string>, files: Upload[] = []): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(parts)) data.append(name, value);
  for (const f of files) data.append('files', new Blob([f.bytes], { type: f.type ?? 'application/octet-stream' }), f.name);
  return data;
}

/** The typed parts as the contract describes them (`filters` as a JSON object in its part), with `files` uploaded. */
function upload(parts: Omit<Schemas['QueryMultipartRequest'], 'files'>, files: Upload[] = [], url = server.url, apiKey = key) {
  const { filters, ...text } = parts;
  return apiClient(url, apiKey).POST('/api/v1/dev/query-multipart', {
    body: parts,
    bodySerializer: () => form({ ...text, ...(filters && { filters: JSON.stringify(filters) }) }, files),
  });
}

beforeAll(async () => {
  server = await startServer();
  ({ key, keyId } = await newKey(server.orm, { plan: 'enterprise' }));
});

describe('POST /api/v1/dev/query-multipart', () => {
  test.each([12_000, 34_000])('a fact %d characters into an attached text is quoted: any of its first 36,000 characters may be (it was about 15,000)', async (at) => {
    const filler = 'The river carries sand and silt down to the coast every rainy season. ';
    const before = filler.repeat(Math.ceil(at / filler.length)).slice(0, at);
    const text = `${before.slice(0, before.lastIndexOf('. ') + 2)}The axolotl regrows its limbs easily. ${filler.repeat(20)}`;
    const res = await upload({ query: 'What does the axolotl regrow?' }, [{ name: 'long-notes.txt', bytes: new TextEncoder().encode(text), type: 'text/plain' }]);
    expect(res.response.status).toBe(200);
    expect(res.data!.answer).toContain('The axolotl regrows its limbs easily.');
    expect(res.data!.citations[0]!.document_name).toBe('long-notes.txt');
  });

  test('an uploaded text file joins the context: the answer quotes it and cites it as the attachment', async () => {
    const notes = new TextEncoder().encode('--- PAGE 1 ---\nMy teacher said the mitochondria release energy by cellular respiration.\n--- PAGE 2 ---\nThe chloroplast is where photosynthesis happens.');
    const res = await upload({ query: 'Where is energy released by cellular respiration?' }, [{ name: 'class-notes.txt', bytes: notes, type: 'text/plain' }]);
    expect(res.response.status).toBe(200);
    expect(res.data!.answer).toContain('mitochondria release energy by cellular respiration');
    expect(res.data!.citations[0]).toEqual({
      document_id: '',
      document_name: 'class-notes.txt',
      pages: [1, 2],
      metadata: null,
      chunk_text: expect.stringContaining('--- PAGE 2 ---'),
    });
  });

  test('an uploaded PDF is read per page, like ingestion, and answers the same shape as the JSON operation', async () => {
    const pdf = await fixture('../../samples/curriculum/pdf/grade10-science-photosynthesis.pdf');
    const res = await upload({ query: 'What is the word equation of photosynthesis?', store_id: 'default', filters: { subject: 'Mathematics' }, model: 'svcai-fast' }, [
      { name: 'my-textbook.pdf', bytes: pdf, type: 'application/pdf' },
    ]);
    expect(res.response.status).toBe(200);
    expect(res.data!.citations.some((c) => c.document_name === 'my-textbook.pdf' && c.document_id === '')).toBe(true);
    // the corpus part still honours the filters
    for (const c of res.data!.citations.filter((c) => c.document_id !== '')) expect(c).toMatchObject({ metadata: { subject: 'Mathematics' } });
  });

  test('without a multimodal provider an image is reported unreadable, the request succeeds on the text and the unread image costs no tokens', async () => {
    const res = await upload({ query: 'What do plants need for photosynthesis?' }, [{ name: 'page.png', bytes: await fixture('small.png'), type: 'image/png' }]);
    expect(res.response.status).toBe(200);
    expect(res.data!.answer).toContain("The attached image 'page.png' could not be read");
    const [row] = await server.orm.em.fork().execute<{ tokens: number }[]>('select tokens from request_log where api_key_id = ? order by id desc limit 1', [keyId]);
    const without = await upload({ query: 'What do plants need for photosynthesis?' });
    const [plain] = await server.orm.em.fork().execute<{ tokens: number }[]>('select tokens from request_log where api_key_id = ? order by id desc limit 1', [keyId]);
    expect(without.response.status).toBe(200);
    expect(without.response.headers.get('server-timing')).toMatch(/^admission;dur=\d+\.\d, retrieval;dur=\d+\.\d, answer;dur=\d+\.\d$/);
    // same question and passages (the service's notice is not model output): the image no model read adds nothing
    expect(without.data!.answer).toBe(res.data!.answer.split('\n\n')[0]);
    expect(row!.tokens).toBe(plain!.tokens);
  });

  test.each([
    ['small.png', 'image/png'],
    ['photo.jpg', 'image/jpeg'],
    ['diagram.webp', 'image/webp'],
    ['tiny.gif', 'image/gif'],
    ['photo.heic', 'image/heic'],
  ])('%s (%s) is accepted', async (name, type) => {
    const res = await upload({ query: 'photosynthesis' }, [{ name, bytes: await fixture(name), type }]);
    expect(res.response.status).toBe(200);
  });

  test('more than 5 files is 400 naming the maximum', async () => {
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `n${i}.txt`, bytes: new TextEncoder().encode(`note ${i}`), type: 'text/plain' }));
    const res = await upload({ query: 'photosynthesis' }, files);
    expect(res.response.status).toBe(400);
    const message = 'Too many attachments: 6 were sent, at most 5 are allowed.';
    expect(res.error).toEqual({ detail: message, errors: [{ path: '/files', message }] });
  });

  test('a file over 10 MiB is 400 naming the file, its size and the maximum', async () => {
    const big = new Uint8Array(10_485_761).fill(0x61);
    const res = await upload({ query: 'photosynthesis' }, [{ name: 'big.txt', bytes: big, type: 'text/plain' }]);
    expect(res.response.status).toBe(400);
    expect(res.error).toEqual({ detail: "File 'big.txt' is 10485761 bytes, larger than the maximum of 10485760 bytes." });
  });

  test('an unsupported type is 400 naming it; a spoofed type is 400', async () => {
    const zip = Buffer.from('UEsDBBQAAAAIAAAAIQAAAAAAAAAAAAAAAAAAAAAACAAAAGEudHh0', 'base64');
    const unsupported = await upload({ query: 'x' }, [{ name: 'homework.zip', bytes: zip, type: 'application/zip' }]);
    expect(unsupported.response.status).toBe(400);
    expect(detailOf(unsupported.error)).toBe(
      "Unsupported media type 'application/zip' for attachment 'homework.zip'. Supported types: image/jpeg, image/png, image/webp, image/gif, image/heic, application/pdf, text/plain.",
    );
    const spoofed = await upload({ query: 'x' }, [{ name: 'paper.pdf', bytes: await fixture('small.png'), type: 'application/pdf' }]);
    expect(spoofed.response.status).toBe(400);
    expect(detailOf(spoofed.error)).toBe("Attachment 'paper.pdf' is declared as application/pdf, but its content is image/png.");
  });

  test.each([
    ['Windows-1252', Buffer.from('Caf\xe9 notes on photosynthesis', 'latin1')],
    ['UTF-16', Buffer.from('\ufeffnotes on photosynthesis', 'utf16le')],
  ])('a text file saved as %s is 400 telling to save it as UTF-8', async (_, bytes) => {
    const res = await upload({ query: 'photosynthesis' }, [{ name: 'notes.txt', bytes, type: 'text/plain' }]);
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toBe("Attachment 'notes.txt' is declared as text/plain, but it is not UTF-8 text: save it as UTF-8 and send it again.");
  });

  test.each([
    [{ query: 'x', colour: 'red' }, "Unknown part 'colour'"],
    [{ query: 'x', filters: 'subject=Science' }, "Part 'filters' must be a JSON object"],
    [{ query: 'x', filters: '{"language":"french"}' }, 'must be one of: english, sinhala, tamil'],
    [{ store_id: 'default' }, "Field 'query' is required."],
    [{ query: 'x', model: 'gpt-4' }, "Field 'model' must be one of"],
  ])('bad parts %j are 400', async (parts, detail) => {
    // parts as written, most of which the typed client could not send
    const res = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', body: form(parts) });
    expect(res.status).toBe(400);
    expect(detailOf(res.body)).toContain(detail);
  });

  test('the model part follows the plan rules', async () => {
    const free = await newKey(server.orm, { plan: 'free' });
    const res = await upload({ query: 'photosynthesis', model: 'svcai-thinking' }, [], server.url, free.key);
    expect(res.response.status).toBe(403);
  });

  test('a body that is not multipart is 415; a declared length over the limit is 413 before it is read', async () => {
    const json = await sendRaw(server.url, 'queryMultipart', { key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query":"x"}' });
    expect(json.status).toBe(415);
    // node:http, as fetch cannot declare a length it does not send
    const tooLarge = await new Promise<ApiResponse>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/dev/query-multipart`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(60 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        const headers = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        });
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(tooLarge.headers.get('connection')).toBe('close');
    expect(tooLarge.status).toBe(413);
    expectDocumented(tooLarge, 'queryMultipart');
  });

  test('a body that ends inside a file part is 400, and the server process stays up', async () => {
    const service = await startServerProcess();
    try {
      const truncated = '--zz\r\nContent-Disposition: form-data; name="query"\r\n\r\nhi\r\n--zz\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nhello\r\n';
      const res = await sendRaw(service.url, 'queryMultipart', {
        key,
        method: 'POST',
        headers: { 'Content-Type': 'multipart/form-data; boundary=zz' },
        body: truncated,
      });
      expect(res.status).toBe(400);
      expect(detailOf(res.body)).toMatch(/^The multipart body is malformed/);
      await new Promise((r) => setTimeout(r, 200));
      expect(service.child.exitCode).toBeNull();
      expect((await apiClient(service.url, key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  test('an upload abandoned by the client is completed in the request log', async () => {
    const fresh = await newKey(server.orm, { plan: 'starter' });
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/api/v1/dev/query-multipart`, {
        method: 'POST',
        headers: { 'X-API-Key': fresh.key, 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': '100000' },
      });
      req.on('error', () => resolve());
      req.write('--x\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\npartial');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    let status: number | null = null;
    for (let i = 0; i < 50 && status === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const [row] = await server.orm.em.fork().execute<{ status: number | null }[]>('select status from request_log where api_key_id = ?', [fresh.keyId]);
      status = row?.status ?? null;
    }
    // a client that disconnects while sending its body is recorded as 499 (README, Bodies)
    expect(status).toBe(499);
  });

  test('uploads count toward usage and their content never reaches the logs', async () => {
    const secret = 'unique-marker-7f3a9 photosynthesis happens in leaves';
    const fresh = await newKey(server.orm, { plan: 'starter' });
    const res = await upload({ query: 'Where does photosynthesis happen?' }, [{ name: 'mine.txt', bytes: new TextEncoder().encode(secret), type: 'text/plain' }], server.url, fresh.key);
    expect(res.response.status).toBe(200);
    const usage = await apiClient(server.url, fresh.key).GET('/api/v1/dev/usage');
    expect(usage.data).toMatchObject({ by_endpoint: { '/api/v1/dev/query-multipart': 1 } });
    expect(server.logs.join('')).not.toContain('unique-marker-7f3a9');
  });
});

describe('images with a multimodal provider', () => {
  let fake: FakeOpenAi;
  let multimodal: TestServer;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    multimodal = await startServer({
      services: testServices({}, { OPENAI_API_KEY: 'test-provider-key', OPENAI_BASE_URL: fake.url, OPENAI_IMAGE_INPUT: 'true' }),
    });
  });

  test('images go to the provider as image inputs; HEIC is converted to JPEG; each image adds its documented tokens', async () => {
    fake.setChat(() => ({ text: 'The photo shows a leaf [1].' }));
    const owner = await newKey(multimodal.orm, { plan: 'pro' });
    const res = await upload({ query: 'What does the photo show?' }, [
      { name: 'leaf.heic', bytes: await fixture('photo.heic'), type: 'image/heic' },
      { name: 'small.png', bytes: await fixture('small.png'), type: 'image/png' },
    ], multimodal.url, owner.key);
    expect(res.response.status).toBe(200);
    expect(res.data!.answer).toBe('The photo shows a leaf [1].');
    const request = fake.chatRequests.at(-1)!;
    const parts = request.messages[1]!.content as unknown as { type: string; image_url?: { url: string } }[];
    const images = parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url);
    expect(images).toHaveLength(2);
    expect(images[0]).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(images[1]).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    const [row] = await multimodal.orm.em.fork().execute<{ tokens: number }[]>('select tokens from request_log where api_key_id = ? order by id desc limit 1', [owner.keyId]);
    // provider-reported tokens (the stand-in reports its prompt's characters / 4) plus 516 (640x480) + 258 (64x48)
    const prompt = `${request.messages[0]!.content as string} ${parts.filter((p) => p.type === 'text').map((p) => (p as unknown as { text: string }).text).join(' ')}`;
    expect(row!.tokens).toBe(Math.ceil(prompt.length / 4) + Math.ceil('The photo shows a leaf [1].'.length / 4) + 516 + 258);
  });
});
