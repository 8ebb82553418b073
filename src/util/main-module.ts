/**
 * Whether a module is the program Node was started with, so entry files can also be imported
 * (by tests and the library API) without running.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function isMainModule(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

type Cli = (argv: readonly string[], out: (line: string) => void, err: (line: string) => void) => Promise<number>;

/** Runs a command-line entry when its module is the program: lines to stdout/stderr, its exit code. */
export function runIfMain(moduleUrl: string, name: string, cli: Cli): void {
  if (isMainModule(moduleUrl)) runCli(name, cli);
}

/** Runs a command-line entry with this process's arguments: lines to stdout/stderr, its exit code. */
export function runCli(name: string, cli: Cli): void {
  cli(process.argv.slice(2), (l) => process.stdout.write(`${l}\n`), (l) => process.stderr.write(`${l}\n`)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
