/** Running the `ledger` CLI's `main()` in this process (no dist/ build needed). */
import { main } from '../../src/cli/main.js';

/**
 * `LEDGER_API_INFO` set to the node under test and everything written to stdout collected, one
 * entry per write, for as long as `run` lasts; both are restored after.
 */
export async function withCliOutput<T>(apiInfo: string, run: (writes: string[]) => Promise<T>): Promise<T> {
  const writes: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const saved = process.env.LEDGER_API_INFO;
  process.env.LEDGER_API_INFO = apiInfo;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    writes.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    return await run(writes);
  } finally {
    process.stdout.write = write;
    if (saved === undefined) delete process.env.LEDGER_API_INFO;
    else process.env.LEDGER_API_INFO = saved;
  }
}

export interface CliRun {
  readonly stdout: string;
  readonly stderr: string;
  /** process.exitCode as `main()` left it (1 after an error it reported); reset after. */
  readonly exitCode: number | undefined;
}

/** Runs `ledger <args>` through `main()` against the node at `apiInfo`: what it wrote to stdout and stderr. */
export async function runCli(apiInfo: string, args: readonly string[]): Promise<CliRun> {
  const errors: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    errors.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    const stdout = await withCliOutput(apiInfo, async (writes) => {
      await main(['node', 'ledger', ...args]);
      return writes.join('');
    });
    return { stdout, stderr: errors.join(''), exitCode: process.exitCode as number | undefined };
  } finally {
    process.stderr.write = write;
    process.exitCode = undefined;
  }
}
