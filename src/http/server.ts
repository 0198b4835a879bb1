import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import { limitBodyPauses } from './body-pauses.js';
import type { Logger } from './logger.js';
import { requestIdFrom } from './request-context.js';

// Node's HTTP parser refuses some requests before Koa sees them: it then answers a bare 400 or
// 431, or resets the connection. These are answered here in the documented {detail} shape, with
// an X-Request-Id like every other response.
const PARSER_ERRORS: Record<string, { status: number; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'The request line and headers are larger than the limit of 16384 bytes.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'The request was not received in time.' },
  ERR_HTTP_HEADERS_TIMEOUT: { status: 408, detail: 'The request headers were not received in time.' },
  // (a method HTTP defines but an operation does not take is the app's 405, with Allow); bytes
  // after a body longer than its Content-Length are read as the next request's method too
  HPE_INVALID_METHOD: {
    status: 400,
    detail:
      "The request's method is not an HTTP method (each operation takes GET, POST, PUT, PATCH or DELETE), or a body on this connection was longer than its Content-Length (its extra bytes were read as a request): count the body's bytes (UTF-8), not its characters.",
  },
};
const MALFORMED = 'The request is not valid HTTP/1.1 (for example a header with a control character such as CR or NUL in it).';

/** Connections whose request the parser refused and answered itself, mid-body too (a chunk size that is no number). */
const refusedByParser = new WeakSet<Socket>();

/** Each connection's latest request, for a refusal inside its body to carry the id the app gave it. */
const latestRequest = new WeakMap<Socket, { req: IncomingMessage; res: ServerResponse }>();

/**
 * The 400 the parser gave a request whose body the app was reading, for the app to record it as
 * that; undefined when the parser refused nothing on this connection (the client went away).
 */
export function parserRefusal(socket: Socket): InvalidRequestError | undefined {
  return refusedByParser.has(socket) ? new InvalidRequestError('The request body is not valid HTTP/1.1 framing.') : undefined;
}

/** The HTTP server for the app: parser failures answered as {detail}, every connection bounded in time. */
export function createHttpServer(app: Koa, log: Logger, { bodyIdleMs }: { bodyIdleMs: number }): Server {
  const handle = app.callback();
  const server = createServer({ requestTimeout: 300_000, headersTimeout: 20_000 }, (req, res) => {
    latestRequest.set(req.socket, { req, res });
    limitBodyPauses(req, bodyIdleMs);
    // Koa's handler settles every request itself, errors included
    void handle(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // a client that reset the connection, or one already answered, gets nothing more
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, detail } = PARSER_ERRORS[error.code ?? ''] ?? { status: 400, detail: MALFORMED };
    // a connection that ended mid-request is a client gone (recorded 499), not a refusal
    if (error.code !== 'HPE_INVALID_EOF_STATE') refusedByParser.add(socket);
    // a refusal inside the body of a request the app is reading answers with that request's id,
    // the one its log row has, and its rate-limit headers once admitted (it counts); before any
    // headers were read there is no request yet: a new id
    const latest = latestRequest.get(socket);
    const carried = latest && !latest.req.complete ? carriedHeaders(latest.res) : {};
    const requestId = carried['X-Request-Id'] ?? randomUUID();
    log.debug({ code: error.code, status, requestId }, 'unreadable request');
    answerAndClose(socket, status, detail, { ...carried, 'X-Request-Id': requestId });
  });
  // Node hands CONNECT (a proxy's tunnel) to this event, not to the app, and closes the connection
  // unanswered when nothing listens: this server is no proxy
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const incoming = req.headers['x-request-id'];
    const requestId = requestIdFrom(typeof incoming === 'string' ? incoming : undefined);
    answerAndClose(socket, 405, 'CONNECT is not supported: this server is not a proxy.', { 'X-Request-Id': requestId });
  });
  return server;
}

/** The headers of the app's answer under way that a refusal of its request keeps: its id, and its window once admitted. */
const CARRIED = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

function carriedHeaders(res: ServerResponse): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const name of CARRIED) {
    const value = res.getHeader(name);
    if (typeof value === 'string' || typeof value === 'number') carried[name] = String(value);
  }
  return carried;
}

function answerAndClose(socket: Socket, status: number, detail: string, headers: Record<string, string>): void {
  const body = JSON.stringify({ detail });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${lines}Connection: close\r\n\r\n${body}`);
}

/** Listens on host:port; resolves once the server accepts connections. */
export function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
