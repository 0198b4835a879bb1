import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The command line of an operator command, parsed; a mistake (unknown option, missing value)
 * prints `<command>: <what is wrong>` and the usage, and exits 2 — never a stack trace.
 */
export function commandLine<T extends ParseArgsConfig>(command: string, usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    // parseArgs says which option is unknown or lacks its value
    return usageError(command, usage, (error as Error).message);
  }
}

export function usageError(command: string, usage: string, problem: string): never {
  console.error(`${command}: ${problem}\n${usage}`);
  process.exit(2);
}

/**
 * A path given on the command line, absolute. `npm run <command>` runs the script from the
 * project's root and says where the operator was in INIT_CWD; a child process inherits that
 * variable from any npm above it, so it counts only when npm ran this very command.
 */
export function callerPath(command: string, path: string): string {
  const { INIT_CWD, npm_lifecycle_event } = process.env;
  return resolve(npm_lifecycle_event === command && INIT_CWD ? INIT_CWD : process.cwd(), path);
}
