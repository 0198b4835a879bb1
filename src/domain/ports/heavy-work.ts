import type { ImageType, ReadImage } from '../attachments/image.js';
import type { Page } from '../documents/pages.js';
import { ServiceError } from '../errors.js';

/**
 * The steps whose processor time or memory grows with what a caller sends, so that one file could
 * stall the service if they ran on the event loop. Each is a pure function of its input, named
 * here by what it gives, not by the code that does it: src/worker-pool/ runs them in worker
 * threads today (`pdfText` in a poppler subprocess the thread waits for), and a step can move to
 * another reader without changing a caller.
 */
export interface HeavyJobs {
  /** The text of each page of a PDF, in order, repaired and normalised (finishPdfPages in src/domain/documents/pdf-text.ts). */
  pdfText: { input: Uint8Array; output: string[] };
  /** UTF-8 text split at its `--- PAGE <n> ---` lines (src/domain/documents/pages.ts). */
  markedText: { input: Uint8Array; output: Page[] };
  /** An image's size, and a HEIC image as JPEG (src/domain/attachments/image.ts). */
  image: { input: { bytes: Uint8Array; type: ImageType }; output: ReadImage };
  /** The tokens of each text as an OpenAI-family tokenizer counts them (src/domain/answering/cost.ts). */
  tokens: { input: string[]; output: number[] };
}

export type HeavyJobKind = keyof HeavyJobs;

/** Runs heavy steps off the event loop, each within a budget of processor time and memory. */
export interface HeavyWork {
  /**
   * Runs one step for `owner` (the calling key's id, or a command's name), whose jobs share a
   * bounded part of the service's capacity. Rejects with JobFailedError when the step itself
   * fails, OverBudgetError when it needs more than its budget, OwnerBusyError when the owner
   * already has as many jobs running and waiting as allowed, ServiceBusyError when the service
   * has (or a job waited too long for its turn). When `signal` fires (its request failed or went
   * away, its upload was deleted) a waiting job is dropped and a running one stopped, rejecting
   * with the signal's reason.
   */
  run<K extends HeavyJobKind>(kind: K, input: HeavyJobs[K]['input'], owner: string, signal?: AbortSignal): Promise<HeavyJobs[K]['output']>;
}

/** The step threw: its error's name and message, as the step's code gave them. */
export class JobFailedError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export type Budget = 'time' | 'memory';

/** The step was stopped for needing more than its budget; the message says how much that is. */
export class OverBudgetError extends Error {
  constructor(
    readonly budget: Budget,
    readonly limit: number,
  ) {
    const seconds = limit / 1000;
    super(budget === 'time' ? `more than ${seconds} second${seconds === 1 ? '' : 's'} of processor time` : `more than ${limit} MB of memory`);
  }
}

/** The owner already has as many jobs running and waiting as its share allows: 429, retry later. */
export class OwnerBusyError extends ServiceError {
  constructor(running: number, waiting: number, retryAfterSeconds: number) {
    super(
      'rate_limit_exceeded',
      `Too many files are being read for this account at once: at most ${running} at a time and ${waiting} waiting. Retry when your earlier requests have finished.`,
      { retryAfterSeconds },
    );
  }
}

/** The service is reading as many files as it can: 503, retry shortly. */
export class ServiceBusyError extends ServiceError {
  constructor() {
    super('dependency_unavailable', 'The service is reading as many files as it can at the moment. Please retry shortly.');
  }
}
