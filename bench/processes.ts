import { spawn, type StdioOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// The processes the benchmark starts: each is registered the moment it is spawned and stopped on
// every way out of the run (normal end, error, Ctrl-C), so none outlives the benchmark.

const STOP_GRACE_MS = 10_000;
const STDERR_TAIL_CHARS = 4_000;

export interface Child {
  name: string;
  pid: number;
  /** The exit code or signal once the process has exited; undefined while it runs. */
  exited(): string | undefined;
  stderrTail(): string;
  /** Resolves with the first stdout line matching `pattern` (the process's own report, e.g. its port). */
  line(pattern: RegExp, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

const running = new Set<Child>();

// a signal sent to this process alone (kill, timeout) ends the run through process.exit, so that
// the handler below stops the children: Node's own ending on a signal runs no 'exit' handler
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

// last resort when the run ends without reaching its own cleanup (an exception at the top level, a signal)
process.on('exit', () => {
  for (const child of running) {
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Starts `command` (this Node by default; a script that execs its program keeps its pid, so its memory is the program's). */
export function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv, stdout: 'pipe' | 'ignore' | number = 'pipe', command = process.execPath): Child {
  const stdio: StdioOptions = ['ignore', stdout, 'pipe'];
  const proc = spawn(command, args, { env, stdio });
  if (proc.pid === undefined) throw new Error(`could not start ${name}`);
  let out = '';
  let err = '';
  let exit: string | undefined;
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-STDERR_TAIL_CHARS)));
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', (code, signal) => {
      exit = signal ?? `code ${code}`;
      running.delete(child);
      resolve();
    }),
  );
  const child: Child = {
    name,
    pid: proc.pid,
    exited: () => exit,
    stderrTail: () => err,
    async line(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = out.split('\n').find((l) => pattern.test(l));
        if (found) return found;
        if (exit) throw new Error(`${name} exited (${exit}) before it was ready: ${err}`);
        if (Date.now() > deadline) throw new Error(`${name} was not ready within ${timeoutMs} ms: ${err}`);
        await sleep(50);
      }
    },
    async stop() {
      if (exit) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
  running.add(child);
  return child;
}

export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
}


/** The resident set of a process now, in bytes (Linux /proc); 0 once it has exited. */
export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the resident memory of processes every 100 ms until stopped; returns the largest peak in bytes. */
export function peakRss(...pids: number[]): { stop(): number } {
  const now = () => Math.max(...pids.map(rssBytes));
  let peak = now();
  const timer = setInterval(() => (peak = Math.max(peak, now())), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, now());
    },
  };
}
