import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { OverBudgetError, type Budget, type HeavyJobKind, type HeavyJobs } from '../domain/ports/heavy-work.js';
import type { ToolLimits } from './poppler.js';

// A worker thread of the pool (pool.ts): it runs one step at a time, as the pool sends them.

/**
 * The thread's scheduling priority, the lowest (nice 19): heavy work gives way to the event loop
 * whenever both want a processor, so a busy thread costs the other requests little latency. Linux
 * takes a thread's id where setpriority wants a process id; elsewhere the thread keeps the
 * process's priority.
 */
const NICE = 19;
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').at(-1)), NICE);
} catch {
  // no /proc/thread-self: not Linux
}

type Step<K extends HeavyJobKind> = (input: HeavyJobs[K]['input']) => HeavyJobs[K]['output'] | Promise<HeavyJobs[K]['output']>;

/**
 * The code behind each step of src/domain/ports/heavy-work.ts, loaded when a worker first runs
 * it (a worker that only counts tokens never loads the PDF reader). Another reader for a step is
 * a change of its line here. The PDF reader's tools run outside the thread, so they get the job's
 * budget (the pool's workerData) as their own limits.
 */
const STEPS: { [K in HeavyJobKind]: () => Promise<Step<K>> } = {
  pdfText: async () => {
    const { readPdfPages } = await import('./poppler.js');
    return (bytes) => readPdfPages(bytes, workerData as ToolLimits);
  },
  markedText: async () => (await import('../domain/documents/pages.js')).readMarkedText,
  image: async () => (await import('../domain/attachments/image.js')).readImage,
  tokens: async () => (await import('../domain/answering/cost.js')).countTokens,
};

export interface JobMessage {
  kind: HeavyJobKind;
  input: unknown;
}

/** `started`: the step's code is loaded and its budget starts; then one result. */
export type WorkerMessage =
  | { started: true }
  | { ok: true; output: unknown }
  | { ok: false; name: string; message: string }
  // a subprocess of the step went over the budget the pool gave it
  | { ok: false; budget: Budget; limit: number };

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread of src/worker-pool/pool.ts');

port.on('message', ({ kind, input }: JobMessage) => {
  void run(kind, input).then((message) => port.postMessage(message));
});

async function run(kind: HeavyJobKind, input: unknown): Promise<WorkerMessage> {
  try {
    const step = (await STEPS[kind]()) as (input: unknown) => unknown;
    port!.postMessage({ started: true } satisfies WorkerMessage);
    return { ok: true, output: await step(input) };
  } catch (error) {
    if (error instanceof OverBudgetError) return { ok: false, budget: error.budget, limit: error.limit };
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { ok: false, name, message };
  }
}
