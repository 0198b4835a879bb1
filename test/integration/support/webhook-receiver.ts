import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { temporaryDirectory } from './cleanup.js';
import { makeCertificate, startHttpsFileServer, type HttpsFileServer } from './https-file-server.js';

// A customer's webhook receiver: a real HTTPS server on loopback with a certificate made at test
// time for RECEIVER_HOST, which the service reaches only through its test-only loopback setting
// (WEBHOOKS_TEST_LOOPBACK_SUFFIX) and trusts through WEBHOOK_CA_FILE. It records every request.

export const RECEIVER_HOST = 'receiver.test';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  server: HttpsFileServer;
  /** The CA file for WEBHOOK_CA_FILE (removed after the test file). */
  caFile: string;
  received: Received[];
  url(path: string): string;
  /** Answers requests to `path` with `respond`, once their body is read. */
  route(path: string, respond: (req: Received, res: ServerResponse) => void): void;
  /** The requests to `path`, once there are `count` of them (within `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
}

export async function startReceiver(): Promise<Receiver> {
  const certificate = makeCertificate([RECEIVER_HOST]);
  const dir = temporaryDirectory('webhook-ca-');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
  const server = await startHttpsFileServer({ certificate });
  const received: Received[] = [];
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    server,
    caFile,
    received,
    url: (path) => server.url(path, RECEIVER_HOST),
    route(path, respond) {
      server.route(path, (req: IncomingMessage, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
          const request = { path, headers, body: Buffer.concat(chunks).toString('utf8') };
          received.push(request);
          respond(request, res);
        });
      });
    },
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (at(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${path} got ${at(path).length} of ${count} requests within ${timeoutMs} ms: ${JSON.stringify(at(path).map((r) => r.body))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return at(path);
    },
  };
}

/** Answers `status` with `body`. */
export function answer(status: number, body = '', headers: Record<string, string> = {}): (req: Received, res: ServerResponse) => void {
  return (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
    res.end(body);
  };
}

/** The event a request carried, verified with the Standard Webhooks reference code and `secret` (throws when the signature fails). */
export function verified(request: Received, secret: string): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
}
