/** `ledger daemon`: runs the node in the foreground until SIGINT or SIGTERM. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { NETWORK_NAMES, type NetworkName } from '../../node/network.js';
import { defaultRepoPath } from '../../node/repo.js';
import type { GlobalOptions } from '../node-connection.js';

function integerParser(name: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    }
    return number;
  };
}

interface DaemonOptions {
  api?: number;
  network?: NetworkName;
  apiMaxReqSize?: number;
  importSnapshot?: string;
  importChain?: string;
}

export function daemonCommand(): Command {
  return new Command('daemon')
    .description('Start the node: initialise the repo if needed, serve the JSON-RPC API, stop on SIGINT/SIGTERM')
    .option(
      '--api <port>',
      'API port (0 picks a free one; default: config.toml [API] ListenAddress)',
      integerParser('--api', 0, 65535),
    )
    .addOption(
      new Option('--network <name>', 'network preset (default: config.toml [Chain] Network)').choices(NETWORK_NAMES),
    )
    .option(
      '--api-max-req-size <bytes>',
      'largest accepted request body (default: config.toml [API] MaxRequestSize)',
      integerParser('--api-max-req-size', 1024, Number.MAX_SAFE_INTEGER),
    )
    .addOption(
      new Option(
        '--import-snapshot <file>',
        'first import a chain snapshot (.car or .car.zst; minimal or full) into a repo without a chain',
      ).conflicts('importChain'),
    )
    .option('--import-chain <file>', 'first import a full chain snapshot (state trees back to genesis)')
    .action(async (options: DaemonOptions, command: Command) => {
      const repoPath = command.optsWithGlobals<GlobalOptions>().repo ?? defaultRepoPath();
      const snapshot = options.importChain ?? options.importSnapshot;
      if (snapshot !== undefined) {
        const { importSnapshotIntoRepo } = await import('../snapshot-import.js');
        await importSnapshotIntoRepo({
          repoPath,
          file: snapshot,
          mode: options.importChain === undefined ? 'snapshot' : 'chain',
          showProgress: true,
        });
      }
      // Loaded here, not at the top: the server stack would slow down every other command's start.
      const { LedgerNode, stopOnSignal } = await import('../../node/index.js');
      const node = await LedgerNode.start({
        repoPath,
        overrides: { apiPort: options.api, network: options.network, maxRequestSize: options.apiMaxReqSize },
      });
      await stopOnSignal(node);
    });
}
