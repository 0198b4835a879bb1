import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

// Ports below the kernel's ephemeral range: the OS never hands them to outgoing connections, so
// a port found free here stays free until the process it is meant for listens (a port from
// listen(0) is ephemeral, and a database or HTTP client's connect() could take it in between).
const LOWEST = 20_000;
const TRIES = 50;
// never the same port twice in one process: callers often ask for two before either listens
const handedOut = new Set<number>();

/** Whether 127.0.0.1:`port` can be listened on just now. */
export function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first port of the kernel's ephemeral range, where it is known (Linux). */
async function ephemeralLow(): Promise<number | undefined> {
  try {
    const low = Number((await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

/** A port free just now, for a process that must be told its port before it listens. */
export async function freePort(): Promise<number> {
  const low = await ephemeralLow();
  if (low !== undefined && low > LOWEST + TRIES) {
    for (let i = 0; i < TRIES; i += 1) {
      const port = LOWEST + Math.floor(Math.random() * (low - LOWEST));
      if (handedOut.has(port) || !(await bindable(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  return anyPort();
}
