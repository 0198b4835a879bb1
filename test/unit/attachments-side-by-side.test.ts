import { describe, expect, test } from '@jest/globals';
import { sideBySide } from '../../src/domain/attachments/side-by-side.js';

/** Work that ends only when stopped, saying which item it was. */
const untilStopped = (stopped: number[]) => (n: number, stop: AbortSignal) =>
  new Promise<number>((_, reject) => {
    stop.addEventListener('abort', () => {
      stopped.push(n);
      reject(new Error(`item ${n} stopped`));
    });
  });

describe("a request's attachments side by side", () => {
  test('all succeed: their results in order', async () => {
    expect(await sideBySide([1, 2, 3], (n) => Promise.resolve(n * 10))).toEqual([10, 20, 30]);
  });

  test('the first failure stops the others and is the one reported', async () => {
    const stopped: number[] = [];
    const wait = untilStopped(stopped);
    const all = sideBySide([1, 2, 3], (n, stop) => (n === 2 ? Promise.reject(new Error('item 2 refused')) : wait(n, stop)));
    await expect(all).rejects.toThrow('item 2 refused');
    expect(stopped.sort()).toEqual([1, 3]);
  });

  test('the request going away stops them all and fails with its reason', async () => {
    const request = new AbortController();
    const stopped: number[] = [];
    const all = sideBySide([1, 2, 3], untilStopped(stopped), request.signal);
    const gone = new Error('The client closed the connection before the response was complete.');
    request.abort(gone);
    await expect(all).rejects.toBe(gone);
    expect(stopped.sort()).toEqual([1, 2, 3]);
  });
});
