import type { ChildProcess } from 'node:child_process';
import { startProcess, waitUntilReady, type Exit } from './processes.js';
import { HASH_SECRET, databaseUrl } from './server.js';
import { freePort } from '../../../scripts/lib/free-port.js';

// The compiled service as its own process, started as in production (scripts/start.sh, as `npm
// start` runs it: its Node options and allocator): what crashes it, kills it.

export interface ServerProcess {
  url: string;
  /** The process's documentation site. */
  docsUrl: string;
  child: ChildProcess;
  /** Settles when the process has exited. */
  finished: Promise<Exit>;
  /** What the process wrote to stderr lately. */
  stderrTail(): string;
  stop(): Promise<void>;
}


/**
 * Starts the compiled service on a free port and waits until it answers HTTP; stopped after the
 * test file at the latest. Without a PayHere merchant unless `env` gives one: a process that a test
 * kills must not be holding other tests' payment notifications from the shared job queue.
 */
const NO_PAYMENTS = { PAYHERE_MERCHANT_ID: '', PAYHERE_MERCHANT_SECRET: '', PAYHERE_APP_ID: '', PAYHERE_APP_SECRET: '' };

export async function startServerProcess(env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const docsPort = await freePort();
    const server = startProcess('bash', ['scripts/start.sh'], {
      env: { ...process.env, PORT: String(port), DOCS_PORT: String(docsPort), KEY_HASH_SECRET: HASH_SECRET, DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', OPENAI_API_KEY: '', ...NO_PAYMENTS, ...env },
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitUntilReady(server, `the server process on port ${port}`, async (signal) => {
        // any HTTP answer means it listens; an unauthenticated call costs no database work
        const res = await fetch(`${url}/api/v1/dev/plans`, { signal });
        await res.arrayBuffer();
        return true;
      });
    } catch (error) {
      await server.stop();
      // another process of this machine may take the port between its choice and the listen: choose again
      if (attempt < 3 && server.stderrTail().includes('EADDRINUSE')) continue;
      throw error;
    }
    return { url, docsUrl: `http://127.0.0.1:${docsPort}`, child: server.child, finished: server.finished, stderrTail: server.stderrTail, stop: server.stop };
  }
}
