import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { closeServer, onCleanup } from './cleanup.js';

// A local server speaking the OpenAI HTTP protocol (POST /v1/chat/completions, also streamed as
// Server-Sent Events, and /v1/embeddings), the one stand-in the tests use: the real provider
// cannot be reached here.

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
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

export interface ChatReply {
  text: string;
  /** an error status instead of the answer, before anything is streamed */
  status?: number;
  /** a wait before the answer (or its first streamed piece) */
  delayMs?: number;
  /** streamed: the answer in these pieces (by default word by word, each with the space before it) */
  pieces?: string[];
  /** streamed: a wait before each piece after the first */
  pauseMs?: number;
  /** streamed: after this many pieces an error event ends the stream instead of the rest */
  failAfter?: number;
  /** streamed: the pieces after the first wait until this settles; not streamed: the whole answer does */
  hold?: Promise<void>;
}

export type ChatBehaviour = (request: ChatRequest) => ChatReply;

/** A streamed answer, or one held (ChatReply.hold): how its connection ended, once it has. */
export interface StreamRecord {
  request: ChatRequest;
  /** 'finished' after [DONE] (or the error event) or the held answer; 'closed' when the caller closed the connection first */
  ended: Promise<'finished' | 'closed'>;
}

export interface FakeOpenAi {
  url: string;
  chatRequests: ChatRequest[];
  streams: StreamRecord[];
  /** the answers that were not streamed and were held */
  held: StreamRecord[];
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

function usageOf(request: ChatRequest, text: string) {
  const prompt = Math.ceil(request.messages.map((m) => messageText(m.content)).join(' ').length / 4);
  const completion = Math.ceil(text.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

/** The answer as OpenAI streams it: chat.completion.chunk events, a usage chunk when asked for, then [DONE]. */
async function stream(res: ServerResponse, request: ChatRequest, reply: ChatReply): Promise<'finished' | 'closed'> {
  const closed = new Promise<'closed'>((resolve) => res.on('close', () => resolve('closed')));
  const chunk = (choices: unknown[], usage: unknown = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_790_000_000, model: request.model, system_fingerprint: null, choices, usage })}\n\n`;
  const delta = (content: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: content, logprobs: null, finish_reason: finish }]);
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
  res.write(delta({ role: 'assistant', content: '', refusal: null }));
  const pieces = reply.pieces ?? reply.text.split(/(?=\s)/);
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && reply.pauseMs) await Promise.race([sleep(reply.pauseMs), closed]);
    if (i === 1 && reply.hold) await Promise.race([reply.hold, closed]);
    if (res.destroyed) return 'closed';
    if (reply.failAfter === i) {
      res.end(`data: ${JSON.stringify({ error: { message: reply.text, type: 'server_error', param: null, code: null } })}\n\n`);
      return 'finished';
    }
    res.write(delta({ content: piece }));
  }
  res.write(delta({}, 'stop'));
  if (request.stream_options?.include_usage) res.write(chunk([], usageOf(request, reply.text)));
  res.end('data: [DONE]\n\n');
  return 'finished';
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const chatRequests: ChatRequest[] = [];
  const streams: StreamRecord[] = [];
  const held: StreamRecord[] = [];
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
        if (request.stream) {
          const ended = stream(res, request, reply);
          streams.push({ request, ended });
          return;
        }
        if (reply.hold) {
          const ended = Promise.race([reply.hold.then(() => 'finished' as const), new Promise<'closed'>((resolve) => res.on('close', () => resolve('closed')))]);
          held.push({ request, ended });
          if ((await ended) === 'closed') return;
        }
        return send(res, 200, {
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 1_790_000_000,
          model: request.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: 'stop' }],
          usage: usageOf(request, reply.text),
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
    streams,
    held,
    embeddingRequests,
    setChat: (b) => (behaviour = b),
    close,
  };
}
