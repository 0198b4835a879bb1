import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer, onCleanup } from './cleanup.js';
import { STARTUP_DEADLINE_MS } from './processes.js';

// A real HTTPS server on loopback for the attachment downloader, with a certificate made at test
// time for test host names (files.test and redirect.test unless told others) and 127.0.0.1.

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Certificate {
  key: string;
  cert: string;
}

export interface HttpsFileServer {
  port: number;
  /** The certificate to trust (pass as `ca`). */
  ca: string;
  /** Every request path, in arrival order. */
  hits: string[];
  /** Paths whose response was cut off by the client before the server finished sending it. */
  unfinished: string[];
  url(path: string, host?: string): string;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** A self-signed certificate for `hosts`, valid for one day, made with the openssl CLI. */
export function makeCertificate(hosts = ['files.test', 'redirect.test']): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'attachments-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
        '-subj', `/CN=${hosts[0]}`,
        '-addext', `subjectAltName=${hosts.map((host) => `DNS:${host}`).join(',')},IP:127.0.0.1`,
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ],
      // synchronous, so jest's timeouts cannot interrupt it: it needs its own
      { stdio: 'pipe', timeout: STARTUP_DEADLINE_MS, killSignal: 'SIGKILL' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a server on `host` (127.0.0.1) and `port` (0: a free one); unknown paths answer 404. */
export async function startHttpsFileServer(
  options: { certificate?: Certificate; host?: string; port?: number } = {},
): Promise<HttpsFileServer> {
  const certificate = options.certificate ?? makeCertificate();
  const routes = new Map<string, Handler>();
  const hits: string[] = [];
  const unfinished: string[] = [];
  const server: Server = createServer(certificate, (req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    res.on('close', () => {
      if (!res.writableFinished) unfinished.push(path);
    });
    (routes.get(path) ?? status(404))(req, res);
  });
  const close = onCleanup(() => closeServer(server));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    ca: certificate.cert,
    hits,
    unfinished,
    url: (path, host = 'files.test') => `https://${host}:${port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    close,
  };
}

export function file(bytes: Uint8Array, contentType: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': bytes.length });
    res.end(bytes);
  };
}

export function redirect(location: string, code = 302): Handler {
  return (_req, res) => {
    res.writeHead(code, { Location: location });
    res.end();
  };
}

export function status(code: number): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'Content-Type': 'text/plain' });
    res.end(`status ${code}`);
  };
}

/** Sends the headers, then nothing: the connection stays open until the client gives up. */
export function stall(): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/pdf' });
    res.flushHeaders();
  };
}

/** Streams `total` bytes in chunks without a Content-Length, stopping when the client goes away. */
export function stream(total: number): Handler {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    let sent = 0;
    const pump = (): void => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  };
}

/** Declares `declared` bytes in Content-Length but sends only a few, then stalls. */
export function lyingLength(declared: number): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': declared });
    res.write('%PDF-1.4\n');
  };
}
