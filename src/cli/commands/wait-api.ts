/**
 * `ledger wait-api [--timeout 30s]` (Lotus `lotus wait-api`, filecoin-project/lotus `cli/wait.go`):
 * waits until the node's API answers `Version`, for scripts that start a daemon and go on once it
 * serves. Until then it prints `Not online yet... (<why>)` once a second, as Lotus does; a node
 * that answers with a refusal (a token it does not accept) ends the wait at once with that error.
 */
import { Command } from 'commander';
import { LedgerError } from '../../utils/errors.js';
import { formatGoDuration } from '../go-duration.js';
import { apiOf, findNode, globalOptions } from '../node-connection.js';
import { parseDuration } from './state.js';

const RETRY_MS = 1000;

/** The node is simply not there yet: no api file, or nothing answering at its address (NodeUnreachableError). */
function notOnlineYet(error: unknown): error is LedgerError {
  return error instanceof LedgerError && error.code === 'ERR_NODE_UNREACHABLE';
}

export function waitApiCommand(): Command {
  return new Command('wait-api')
    .description('Wait until the node’s API answers (exit code 1 on timeout)')
    .option('--timeout <duration>', 'give up after this long (90s, 10m, 1h)', parseDuration, 30_000)
    .action(async (options: { timeout: number }, command: Command) => {
      const deadline = Date.now() + options.timeout;
      let why = '';
      for (let left = options.timeout; left > 0; left = deadline - Date.now()) {
        try {
          // Each try within the time left: a node that takes the connection but never answers cannot hold the wait.
          await apiOf(findNode(globalOptions(command)), left).Version();
          return;
        } catch (error) {
          if (!notOnlineYet(error)) throw error;
          why = error.message;
          process.stdout.write(`Not online yet... (${why})\n`);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MS, Math.max(0, deadline - Date.now()))));
      }
      const waited = formatGoDuration(BigInt(options.timeout) * 1_000_000n);
      throw new LedgerError(
        'ERR_TIMEOUT',
        `timed out after ${waited} waiting for the API to come online${why === '' ? '' : `: ${why}`}`,
      );
    });
}
