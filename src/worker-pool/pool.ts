import { Worker } from 'node:worker_threads';
import type { HeavyWorkSettings } from '../config.js';
import {
  JobFailedError,
  OverBudgetError,
  OwnerBusyError,
  ServiceBusyError,
  type HeavyJobKind,
  type HeavyJobs,
  type HeavyWork,
} from '../domain/ports/heavy-work.js';
import { requirePopplerTools, type ToolLimits } from './poppler.js';
import type { JobMessage, WorkerMessage } from './worker.js';

/** The budgets of one job and the caps on how many run and wait (src/config.ts documents each). */
export interface PoolLimits {
  /** jobs running at once in all, one worker thread each */
  threads: number;
  /** jobs of one owner running at once */
  perOwner: number;
  /** jobs of one owner waiting for their turn; one more is refused (429) */
  queuePerOwner: number;
  /** jobs waiting in all; one more is refused (503) */
  queue: number;
  /** how long a job may wait for its turn before it is refused (503) */
  waitMs: number;
  /** processor time of one job */
  cpuMs: number;
  /** memory of a worker running a job: its JavaScript heap plus the buffers it holds */
  memoryMb: number;
}

// The compiled service starts the compiled worker; jest, which runs the sources, a loader that
// compiles them the way jest does.
const ENTRY = import.meta.url.endsWith('.ts') ? new URL('./worker-from-sources.mjs', import.meta.url) : new URL('./worker.js', import.meta.url);
/** How often a running job's processor time and memory are read. */
const WATCH_MS = 25;
/**
 * A job that has had less than a tenth of a processor for this many times its budget is stopped:
 * the machine is overloaded (threads run at the lowest priority, behind the event loop), or the
 * step hangs without using the processor.
 */
const WALL_FACTOR = 10;
/** An idle thread ends after this long; the next job starts a new one. */
const IDLE_MS = 60_000;
const MB = 1024 * 1024;

/** A read of a thread that ended meanwhile: its exit settles the job. */
const ignoreEnded = () => undefined;

interface Job {
  kind: HeavyJobKind;
  input: unknown;
  owner: string;
  /** drops the job while it waits, stops it while it runs */
  signal?: AbortSignal;
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
  /** forgets the signal that would drop the job while it waits */
  stopWaiting?: () => void;
}

/**
 * Runs the heavy steps in worker threads, so the event loop stays free while they run. Each job
 * has a budget of processor time and memory and its thread is stopped when it goes over; jobs
 * wait for a free thread in one queue per owner, and owners take turns, so a caller who sends
 * many slow files waits for its own jobs and not the others for it.
 */
export class WorkerPool implements HeavyWork {
  private readonly idle: Thread[] = [];
  private readonly busy = new Set<Thread>();
  private readonly runningBy = new Map<string, number>();
  private readonly waiting = new Map<string, Job[]>();
  private waitingCount = 0;
  /** when each owner with jobs last started one: the owner whose turn is longest ago goes next */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;
  private closed = false;

  constructor(private readonly limits: PoolLimits) {}

  /** The pool of the service and its commands; throws when a reader's tools are not installed. */
  static fromSettings(settings: HeavyWorkSettings): WorkerPool {
    requirePopplerTools();
    return new WorkerPool({
      threads: settings.HEAVY_WORK_THREADS,
      perOwner: settings.HEAVY_WORK_PER_ACCOUNT,
      queuePerOwner: settings.HEAVY_WORK_QUEUE_PER_ACCOUNT,
      queue: settings.HEAVY_WORK_QUEUE,
      waitMs: settings.HEAVY_WORK_WAIT_MS,
      cpuMs: settings.HEAVY_WORK_CPU_MS,
      memoryMb: settings.HEAVY_WORK_MEMORY_MB,
    });
  }

  /** A pool with limits of its own (the ingestion jobs'); throws when a reader's tools are not installed. */
  static withLimits(limits: PoolLimits): WorkerPool {
    requirePopplerTools();
    return new WorkerPool(limits);
  }

  run<K extends HeavyJobKind>(kind: K, input: HeavyJobs[K]['input'], owner: string, signal?: AbortSignal): Promise<HeavyJobs[K]['output']> {
    return new Promise((resolve, reject) => {
      // the worker answers with the output of the step it was given
      const job: Job = { kind, input, owner, signal, resolve: (output) => resolve(output as HeavyJobs[K]['output']), reject };
      if (this.closed) return reject(new ServiceBusyError());
      if (signal?.aborted) return reject(signal.reason as Error);
      if (this.mayStart(owner)) return this.start(job);
      const queue = this.waiting.get(owner) ?? [];
      if (queue.length >= this.limits.queuePerOwner) {
        return reject(new OwnerBusyError(this.limits.perOwner, this.limits.queuePerOwner, Math.ceil(this.limits.cpuMs / 1000)));
      }
      if (this.waitingCount >= this.limits.queue) return reject(new ServiceBusyError());
      queue.push(job);
      this.waiting.set(owner, queue);
      this.waitingCount++;
      const dropped = () => {
        this.unqueue(job);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', dropped, { once: true });
      job.stopWaiting = () => signal?.removeEventListener('abort', dropped);
      this.timeWaits(owner);
    });
  }

  /**
   * The waiting time that may run out (waitMs, then 503) is time spent waiting for a thread
   * others hold: while its owner runs as many jobs as it may, a job waits for its own owner's
   * (one request's five files read one after another), and its clock is stopped, to start again
   * from nothing when the owner has room.
   */
  private timeWaits(owner: string): void {
    const full = (this.runningBy.get(owner) ?? 0) >= this.limits.perOwner;
    for (const job of this.waiting.get(owner) ?? []) {
      if (full) {
        clearTimeout(job.timer);
        job.timer = undefined;
      } else {
        job.timer ??= setTimeout(() => {
          this.unqueue(job);
          job.reject(new ServiceBusyError());
        }, this.limits.waitMs);
      }
    }
  }

  /** Stops every thread and refuses the jobs still waiting; for programs that end. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.waiting.values()].flat()) {
      this.unqueue(job);
      job.reject(new ServiceBusyError());
    }
    await Promise.all([...this.idle.splice(0), ...this.busy].map((thread) => thread.stop()));
  }

  private mayStart(owner: string): boolean {
    return this.busy.size < this.limits.threads && (this.runningBy.get(owner) ?? 0) < this.limits.perOwner;
  }

  private start(job: Job): void {
    const thread = this.idle.pop() ?? new Thread(this.limits);
    this.busy.add(thread);
    this.runningBy.set(job.owner, (this.runningBy.get(job.owner) ?? 0) + 1);
    this.lastTurn.set(job.owner, ++this.turns);
    this.timeWaits(job.owner);
    void thread.execute(job.kind, job.input, job.signal).then(job.resolve, job.reject).finally(() => {
      this.busy.delete(thread);
      const left = this.runningBy.get(job.owner)! - 1;
      if (left > 0) this.runningBy.set(job.owner, left);
      else this.runningBy.delete(job.owner);
      if (left === 0 && !this.waiting.has(job.owner)) this.lastTurn.delete(job.owner);
      if (thread.usable && !this.closed) this.park(thread);
      else void thread.stop();
      this.startNext();
      this.timeWaits(job.owner);
    });
  }

  /** Starts waiting jobs while threads are free, the owners in turn. */
  private startNext(): void {
    while (this.busy.size < this.limits.threads) {
      const ready = [...this.waiting.keys()].filter((o) => this.mayStart(o));
      if (ready.length === 0) return;
      const turn = (owner: string) => this.lastTurn.get(owner) ?? 0;
      const owner = ready.reduce((a, b) => (turn(b) < turn(a) ? b : a));
      const job = this.waiting.get(owner)![0]!;
      this.unqueue(job);
      this.start(job);
    }
  }

  private unqueue(job: Job): void {
    clearTimeout(job.timer);
    job.stopWaiting?.();
    const queue = this.waiting.get(job.owner);
    const at = queue?.indexOf(job) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waitingCount--;
    if (queue.length > 0) return;
    this.waiting.delete(job.owner);
    if (!this.runningBy.has(job.owner)) this.lastTurn.delete(job.owner);
  }

  private park(thread: Thread): void {
    this.idle.push(thread);
    thread.idleFor(IDLE_MS, () => {
      const at = this.idle.indexOf(thread);
      if (at >= 0) this.idle.splice(at, 1);
      void thread.stop();
    });
  }
}

/** One worker thread; it runs one job at a time and is stopped when a job goes over budget. */
class Thread {
  private readonly worker: Worker;
  /** false once the worker has ended or been stopped: it takes no more jobs */
  usable = true;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly limits: PoolLimits) {
    // the heap limit is a hard stop; buffers outside the heap are counted by the watch below
    this.worker = new Worker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb },
      workerData: { cpuMs: limits.cpuMs, memoryMb: limits.memoryMb } satisfies ToolLimits,
    });
    this.worker.on('exit', () => (this.usable = false));
  }

  /**
   * Runs one job. When `signal` fires the job is stopped as one over its budget is (the thread
   * ends, and the PDF reader's tools with it: tested with tools that write nothing), rejecting
   * with the signal's reason.
   */
  execute(kind: HeavyJobKind, input: unknown, signal?: AbortSignal): Promise<unknown> {
    clearTimeout(this.idleTimer);
    // a running job keeps the program alive; an idle thread does not
    this.worker.ref();
    const { cpuMs, memoryMb } = this.limits;
    return new Promise((resolve, reject) => {
      let settled = false;
      let watch: NodeJS.Timeout | undefined;
      let wall: NodeJS.Timeout | undefined;
      const settle = (error: Error | null, output?: unknown) => {
        if (settled) return;
        settled = true;
        clearInterval(watch);
        clearTimeout(wall);
        signal?.removeEventListener('abort', onStop);
        this.worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        this.worker.unref();
        if (error) reject(error);
        else resolve(output);
      };
      const stopWith = (error: Error) => {
        settle(error);
        void this.stop();
      };
      const onStarted = async () => {
        // the budget starts once the step's code is loaded: loading it does not depend on the input
        const start = await this.cpuMs();
        if (settled) return;
        watch = setInterval(() => {
          void Promise.all([this.cpuMs(), this.worker.getHeapStatistics()]).then(([now, heap]) => {
            if (now - start > cpuMs) stopWith(new OverBudgetError('time', cpuMs));
            else if (heap.used_heap_size + heap.external_memory > memoryMb * MB) stopWith(new OverBudgetError('memory', memoryMb));
          }, ignoreEnded);
        }, WATCH_MS);
        wall = setTimeout(() => stopWith(new ServiceBusyError()), cpuMs * WALL_FACTOR);
      };
      const onMessage = (message: WorkerMessage) => {
        if ('started' in message) void onStarted().catch(ignoreEnded);
        else if (message.ok) settle(null, message.output);
        else if ('budget' in message) settle(new OverBudgetError(message.budget, message.limit));
        else settle(new JobFailedError(message.name, message.message));
      };
      const onError = (error: Error & { code?: string }) => {
        this.usable = false;
        settle(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new OverBudgetError('memory', memoryMb) : new JobFailedError(error.name, error.message));
      };
      const onExit = () => settle(new JobFailedError('Error', 'the reader stopped unexpectedly'));
      const onStop = () => stopWith(signal!.reason as Error);
      this.worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      signal?.addEventListener('abort', onStop, { once: true });
      this.worker.postMessage({ kind, input } satisfies JobMessage);
    });
  }

  /** The processor time the thread has used, in milliseconds. */
  private async cpuMs(): Promise<number> {
    const { user, system } = await this.worker.cpuUsage();
    return (user + system) / 1000;
  }

  idleFor(ms: number, expire: () => void): void {
    this.idleTimer = setTimeout(expire, ms);
    this.idleTimer.unref();
  }

  async stop(): Promise<void> {
    this.usable = false;
    clearTimeout(this.idleTimer);
    await this.worker.terminate();
  }
}
