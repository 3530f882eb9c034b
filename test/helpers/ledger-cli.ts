/**
 * The built `ledger` command (bin/ledger.js running dist/bundle, from `npm run build:ts`) as a
 * child process: its exit code and everything it wrote.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LEDGER_BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin', 'ledger.js');

export interface LedgerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ledger …args` with this process's environment plus `env` (LEDGER_API_INFO cleared unless
 * `env` sets it, so no node of the developer's is reached) and `input` on stdin.
 */
export function runLedger(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<LedgerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEDGER_BIN, ...args], {
      env: { ...process.env, LEDGER_API_INFO: '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
