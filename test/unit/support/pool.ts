import { afterAll, jest } from '@jest/globals';
import { WorkerPool, type PoolLimits } from '../../../src/worker-pool/pool.js';

/** Limits no test file's ordinary files come near; a test about a limit sets its own. */
export const ROOMY: PoolLimits = { threads: 2, perOwner: 2, queuePerOwner: 10, queue: 50, waitMs: 120_000, cpuMs: 60_000, memoryMb: 512 };

/**
 * A worker pool (running the TypeScript sources, as jest does) for one test file, closed after it.
 * Its file's tests get 120 s: the threads start cold, compiling each module with SWC inside the
 * thread, and again after each stopped job; on a busy machine (three busy loops on two cores)
 * such a start alone has outlived 30 s.
 */
export function testPool(limits: Partial<PoolLimits> = {}): WorkerPool {
  jest.setTimeout(120_000);
  const pool = new WorkerPool({ ...ROOMY, ...limits });
  afterAll(() => pool.close());
  return pool;
}
