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
 * started in, once the reader listens for the body's data.
 */
export function whileBodyArrives<T>(req: IncomingMessage, reading: Promise<T>): Promise<T> {
  const idleMs = pauseLimits.get(req);
  // a reader that refused the body at once (its declared length is over the limit) left it
  // paused: listening would read and discard it
  if (idleMs === undefined || req.complete || req.readableFlowing !== true) return reading;
  let paused!: () => void;
  const stalled = new Promise<never>((_, reject) => {
    paused = () => reject(new RequestTimeoutError(idleMs));
  });
  const timer = setTimeout(paused, idleMs);
  const arrived = () => timer.refresh();
  req.on('data', arrived);
  return Promise.race([reading, stalled]).finally(() => {
    clearTimeout(timer);
    req.off('data', arrived);
  });
}
