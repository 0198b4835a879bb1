import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.js';

// Child processes of the tests: each runs in its own process group, is registered for cleanup the
// moment it is spawned, and is stopped as a group (SIGTERM, then SIGKILL after a grace period),
// so nothing it started survives the test file either.

/** How long anything a test starts may take to be ready (or a CLI to finish) on a busy 2-core machine. */
export const STARTUP_DEADLINE_MS = 60_000;
/** How long a process group gets between SIGTERM and SIGKILL. */
export const STOP_GRACE_MS = 10_000;
const STDERR_TAIL_CHARS = 4_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartedProcess {
  child: ChildProcess;
  /** The end of what the process wrote to stderr, for error messages. */
  stderrTail: () => string;
  /** Everything written to stdout and stderr so far (stdout only when started with `captureStdout`). */
  output: () => { stdout: string; stderr: string };
  /** Settles when the process has exited and its output is complete. */
  finished: Promise<Exit>;
  /** The exit, once the process has exited; undefined while it runs. */
  exit: () => Exit | undefined;
  /** Stops the whole process group; idempotent. */
  stop: () => Promise<void>;
}

/** The promise's value, or undefined when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, undefined, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

function describe(command: string, args: readonly string[]): string {
  return [command, ...args].join(' ');
}

export function startProcess(command: string, args: string[], options: { env: NodeJS.ProcessEnv; captureStdout?: boolean }): StartedProcess {
  const child = spawn(command, args, { env: options.env, detached: true, stdio: ['ignore', options.captureStdout ? 'pipe' : 'ignore', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let exit: Exit | undefined;
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve((exit = { code, signal })));
    child.once('error', (error) => {
      // spawning failed: there is no process to wait for
      stderr += String(error);
      if (child.pid === undefined) resolve((exit = { code: null, signal: null }));
    });
  });
  const finished = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
    void exited.then((e) => child.pid === undefined && resolve(e));
  });

  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  const groupAlive = (): boolean => {
    try {
      process.kill(-child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  const groupGone = async (ms: number): Promise<boolean> => {
    for (const deadline = Date.now() + ms; groupAlive(); await new Promise((resolve) => setTimeout(resolve, 100))) if (Date.now() > deadline) return false;
    return true;
  };
  const stop = onCleanup(async () => {
    if (exit === undefined) {
      signalGroup('SIGTERM');
      if (!(await within(exited, STOP_GRACE_MS))) {
        signalGroup('SIGKILL');
        if (!(await within(exited, STOP_GRACE_MS))) throw new Error(`${describe(command, args)} (pid ${child.pid}) survived SIGKILL`);
      }
    }
    // the leader gone, members of its group may live on (a server it ran in the background that
    // outlived it): they are stopped too
    if (groupAlive()) {
      signalGroup('SIGTERM');
      if (!(await groupGone(STOP_GRACE_MS))) {
        signalGroup('SIGKILL');
        if (!(await groupGone(STOP_GRACE_MS))) throw new Error(`the process group of ${describe(command, args)} (pid ${child.pid}) survived SIGKILL`);
      }
    }
    // a descendant that left the group may still hold the pipes: do not wait for it
    child.stdout?.destroy();
    child.stderr?.destroy();
  });

  return {
    child,
    stderrTail: () => stderr.slice(-STDERR_TAIL_CHARS),
    output: () => ({ stdout, stderr }),
    finished,
    exit: () => exit,
    stop,
  };
}

/** Runs a command to its end within `deadlineMs`; past it, the process group is stopped and the run fails. */
export async function runProcess(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; deadlineMs?: number },
): Promise<{ status: number; stdout: string; stderr: string }> {
  const deadlineMs = options.deadlineMs ?? STARTUP_DEADLINE_MS;
  const started = startProcess(command, args, { env: options.env, captureStdout: true });
  const exit = await within(started.finished, deadlineMs);
  if (!exit) {
    await started.stop();
    throw new Error(`${describe(command, args)} did not finish within ${deadlineMs / 1000} s; its stderr ended with:\n${started.stderrTail()}`);
  }
  await started.stop();
  return { status: exit.code ?? -1, ...started.output() };
}

/**
 * Polls `ready` (each attempt cut off after 5 s through its signal) until it resolves true, within
 * STARTUP_DEADLINE_MS. Fails at once, with the end of its stderr, when the process exits first, and
 * at the deadline otherwise; the caller stops the process.
 */
export async function waitUntilReady(started: StartedProcess, what: string, ready: (signal: AbortSignal) => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  for (;;) {
    const exit = started.exit();
    if (exit) throw new Error(`${what} exited (code ${exit.code}, signal ${exit.signal}) before it was ready; its stderr ended with:\n${started.stderrTail()}`);
    if (await ready(AbortSignal.timeout(5_000)).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${STARTUP_DEADLINE_MS / 1000} s; its stderr ended with:\n${started.stderrTail()}`);
    await sleep(100);
  }
}

/** Outer deadline of a service script: the scripts wait for readiness within STARTUP_DEADLINE_MS themselves and say why not; this catches one that hangs. */
export const SCRIPT_DEADLINE_MS = 2 * STARTUP_DEADLINE_MS;

/** Runs `scripts/<name>.sh start|stop` with `env` (a test's own instance of a service, on its own ports); throws with the script's output when it fails. */
export async function serviceScript(name: 'postgres' | 'weaviate' | 'embeddings', command: 'start' | 'stop', env: NodeJS.ProcessEnv): Promise<void> {
  const result = await runProcess('bash', [`scripts/${name}.sh`, command], { env, deadlineMs: SCRIPT_DEADLINE_MS });
  if (result.status !== 0) throw new Error(`scripts/${name}.sh ${command} failed (${result.status}):\n${result.stderr}`);
}
