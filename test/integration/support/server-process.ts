import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { HASH_SECRET, databaseUrl } from './server.js';

// The compiled service as its own process, as in production: what crashes it, kills it.

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startServerProcess(): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, PORT: String(port), KEY_HASH_SECRET: HASH_SECRET, DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn', OPENAI_API_KEY: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/api/v1/dev/plans`);
      return { url, child, stop: () => child.kill('SIGTERM') };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error('server process did not start');
}
