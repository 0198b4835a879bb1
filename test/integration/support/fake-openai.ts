import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { closeServer, onCleanup } from './cleanup.js';

// A local server speaking the OpenAI HTTP protocol (POST /v1/chat/completions and
// /v1/embeddings), the one stand-in the tests use: the real provider cannot be reached here.

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

/** The text of a message, whether plain or in content parts (images are not text). */
export function messageText(content: ChatRequest['messages'][number]['content']): string {
  return typeof content === 'string' ? content : content.filter((p) => p.type === 'text').map((p) => p.text ?? '').join(' ');
}

export interface EmbeddingRequest {
  model: string;
  input: string[];
  /** what the caller embeds the texts as (e5 servers prefix "query: " or "passage: ") */
  inputType?: string;
}

export type ChatBehaviour = (request: ChatRequest) => { text: string; status?: number; delayMs?: number };

export interface FakeOpenAi {
  url: string;
  chatRequests: ChatRequest[];
  embeddingRequests: EmbeddingRequest[];
  setChat(behaviour: ChatBehaviour): void;
  close(): Promise<void>;
}

export const DIMENSIONS = 64;

/** A deterministic bag-of-words vector: texts sharing words point the same way. */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []) {
    const h = createHash('sha256').update(word).digest();
    vector[h[0]! % DIMENSIONS]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        reject(new Error('the request body is not JSON'));
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const chatRequests: ChatRequest[] = [];
  const embeddingRequests: EmbeddingRequest[] = [];
  let behaviour: ChatBehaviour = () => ({ text: 'According to the passages [1].' });

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.headers.authorization !== 'Bearer test-provider-key') return send(res, 401, { error: { message: 'bad key', type: 'invalid_request_error' } });
      const body = (await readJson(req)) as Record<string, unknown>;
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const request = body as unknown as ChatRequest;
        chatRequests.push(request);
        const reply = behaviour(request);
        // unref'd: a slow answer nobody waits for any more must not keep the test run alive
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs).unref());
        if (res.destroyed) return;
        if (reply.status && reply.status !== 200) return send(res, reply.status, { error: { message: reply.text, type: 'server_error' } });
        const prompt = request.messages.map((m) => messageText(m.content)).join(' ');
        return send(res, 200, {
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 1_790_000_000,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(reply.text.length / 4), total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(reply.text.length / 4) },
        });
      }
      if (req.method === 'POST' && req.url === '/v1/embeddings') {
        const input = (Array.isArray(body.input) ? body.input : [body.input]) as string[];
        embeddingRequests.push({ model: String(body.model), input, inputType: typeof body.input_type === 'string' ? body.input_type : undefined });
        const asBase64 = body.encoding_format === 'base64';
        return send(res, 200, {
          object: 'list',
          model: body.model,
          data: input.map((text, index) => {
            const vector = fakeEmbedding(text);
            return { object: 'embedding', index, embedding: asBase64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector };
          }),
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        });
      }
      send(res, 404, { error: { message: 'not found' } });
    })().catch(() => send(res, 400, { error: { message: 'bad request' } }));
  });
  const close = onCleanup(() => closeServer(server));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    chatRequests,
    embeddingRequests,
    setChat: (b) => (behaviour = b),
    close,
  };
}
