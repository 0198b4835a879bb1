import type { IncomingMessage } from 'node:http';
import { RequestTimeoutError } from './http-errors.js';

/** Each request's longest allowed pause in its body, set by the HTTP server as the request arrives. */
const pauseLimits = new WeakMap<IncomingMessage, number>();

export function limitBodyPauses(req: IncomingMessage, idleMs: number): void {
  pauseLimits.set(req, idleMs);
}

/**
 * `reading` (a reader of req's body), failed with a 408 once no body bytes have come for the
 * request's pause limit: a client that declares more bytes than it sends would otherwise hold the
 * connection until Node's timeout for the whole request. Call it in the tick that `reading`
 * started in: listening for data puts the body in flowing mode.
 */
export function whileBodyArrives<T>(req: IncomingMessage, reading: Promise<T>): Promise<T> {
  const idleMs = pauseLimits.get(req);
  if (idleMs === undefined || req.complete) return reading;
  let timer: NodeJS.Timeout | undefined;
  let arm = () => undefined as void;
  const paused = new Promise<never>((_, reject) => {
    arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => reject(new RequestTimeoutError(idleMs)), idleMs);
    };
  });
  arm();
  req.on('data', arm);
  return Promise.race([reading, paused]).finally(() => {
    clearTimeout(timer);
    req.off('data', arm);
  });
}
