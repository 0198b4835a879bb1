import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Everything a test file starts or makes (server processes, servers, fake servers, connection
// pools, temporary directories) registers how to stop or remove it here the moment it exists,
// before anything waits for it to become ready. setup.ts stops whatever is still registered after each test file, so a setup that fails
// or times out half-way leaves nothing running that would keep jest from exiting.

type Stop = () => Promise<void>;

const registered = new Set<Stop>();
let finished = false;

/** Registers `stop` for the end of the test file; returns it made idempotent (calling it early also unregisters it). */
export function onCleanup(stop: Stop): Stop {
  let stopping: Promise<void> | undefined;
  const once: Stop = () => {
    registered.delete(once);
    stopping ??= stop();
    return stopping;
  };
  if (finished) {
    // a setup that outlived its hook's timeout: stop what it just made at once
    void once().catch(() => undefined);
    throw new Error('started after its test file had finished; stopped again');
  }
  registered.add(once);
  return once;
}

/**
 * Stops everything still registered, newest first (a server before the pool it uses), including
 * what a step registers meanwhile (a stop script), and reports every failure.
 */
export async function stopAll(): Promise<void> {
  const errors: unknown[] = [];
  for (let newest = [...registered].at(-1); newest; newest = [...registered].at(-1)) {
    try {
      await newest();
    } catch (error) {
      errors.push(error);
    }
  }
  finished = true;
  if (errors.length) throw new AggregateError(errors, `${errors.length} cleanup step(s) failed`);
}

/** A new directory under the system's temporary one (`prefix` and six characters), removed at the end of the test file. */
export function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Closes an HTTP(S) server and its open connections, listening or not. */
export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
