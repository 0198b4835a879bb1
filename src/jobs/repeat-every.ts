import type { Logger } from 'pino';

/**
 * Runs `task` every `ms`, one run at a time: a slow database does not pile runs up, and a failed
 * run is logged (`failure`) and tried again at the next tick. The timer keeps no process alive.
 * Returns a function that stops the timer, once the run in progress (if any) has ended; a long
 * run can end sooner by stopping at its next step once `stopping` is aborted.
 */
export function repeatEvery(ms: number, task: (stopping: AbortSignal) => Promise<unknown>, log: Logger, failure: string): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    // a task that throws before its promise is made is caught like one that rejects
    running ??= Promise.resolve()
      .then(() => task(stopping.signal))
      .then(
        () => undefined,
        (error: unknown) => log.warn({ err: error }, failure),
      )
      .finally(() => (running = undefined));
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
