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
