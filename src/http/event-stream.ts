import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { logFailure, mapError } from './error-mapper.js';
import type { AppState } from './state.js';

type Ctx = Context & { state: AppState };

export interface EventStreamOptions {
  /** A comment line goes out after this long without an event, so that proxies and clients keep a quiet stream open. */
  heartbeatMs: number;
  /** Aborted when the client closes the connection. */
  signal: AbortSignal;
}

/** How long a stream whose events are all sent waits for its outcome to be recorded before it ends anyway. */
const OUTCOME_WAIT_MS = 5_000;

function frame(event: string, data: unknown): string {
  // JSON text never holds a raw line break, so the data is one `data:` line
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Writes, then waits while the client reads slower than events come (or until it is gone). */
function send(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed || res.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Answers with the events as Server-Sent Events, each written as soon as it is produced. The
 * first event is awaited before anything is sent, so that a failure before it keeps its
 * documented status and JSON body (the error mapper answers it). After that a failure becomes a
 * final `error` event with the body its JSON response would have, and the request log gets that
 * failure's status; a client that goes away is recorded as 499 (the signal has already stopped
 * the work for it). The events' return value, the request's usage, goes into the request log
 * before the stream ends.
 */
export async function sendEventStream(
  ctx: Ctx,
  events: AsyncGenerator<{ event: string; data: unknown; headers?: Record<string, string> }, AppState['usage'], undefined>,
  { heartbeatMs, signal }: EventStreamOptions,
): Promise<void> {
  let step = await events.next();
  if (!step.done && step.value.headers) ctx.set(step.value.headers);
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache');
  // proxies such as nginx hold a response back in a buffer unless told not to
  ctx.set('X-Accel-Buffering', 'no');
  ctx.respond = false;
  const res = ctx.res;
  res.flushHeaders();
  const next = async () => {
    const heartbeat = setInterval(() => res.destroyed || res.write(': keep-alive\n\n'), heartbeatMs);
    try {
      return await events.next();
    } finally {
      clearInterval(heartbeat);
    }
  };
  try {
    for (; !step.done; step = await next()) {
      await send(res, frame(step.value.event, step.value.data));
      if (signal.aborted) throw signal.reason;
    }
    ctx.state.usage = step.value;
  } catch (error) {
    if (signal.aborted) {
      ctx.state.finalStatus = 499;
      ctx.state.log.info('client closed the connection while the answer was streamed');
    } else {
      const mapped = mapError(error, ctx.state.requestId);
      logFailure(ctx.state.log, error, mapped.status);
      ctx.state.finalStatus = mapped.status;
      await send(res, frame('error', mapped.body));
    }
  } finally {
    // the outcome first, so that a client reading /usage once the stream ends sees the answer's
    // tokens; but a database slow to take it does not hold a stream whose events are all sent
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([ctx.state.recordOutcome(), new Promise((resolve) => (waited = setTimeout(resolve, OUTCOME_WAIT_MS)))]);
    clearTimeout(waited);
    res.end();
  }
}
