/** `ledger daemon`: runs the node in the foreground until SIGINT or SIGTERM. */
import { Command, Option } from 'commander';
import { isNetworkName, NETWORK_NAMES } from '../../node/network.js';
import { defaultRepoPath } from '../../node/repo.js';
import { integerParser } from '../arguments.js';
import type { GlobalOptions } from '../node-connection.js';

interface DaemonOptions {
  api?: number;
  network?: string;
  miner?: string[];
  apiMaxReqSize?: number;
  importSnapshot?: string;
  importChain?: string;
  genesis?: string;
  bootstrap?: string[];
  libp2pListen?: string[];
}

export function daemonCommand(): Command {
  return new Command('daemon')
    .description('Start the node: initialise the repo if needed, serve the JSON-RPC API, stop on SIGINT/SIGTERM')
    .option(
      '--api <port>',
      'API port (0 picks a free one; default: config.toml [API] ListenAddress)',
      integerParser('--api', 0, 65535),
    )
    .option(
      '--network <file|name>',
      `the network to join: a definition file (\`ledger network create\` writes one; docs/networks.md) or a preset, ${NETWORK_NAMES.join(' or ')} (default: the repo's network, else config.toml [Chain] Network)`,
    )
    .option(
      '--miner <dir...>',
      "run a pre-sealed genesis miner from its directory (`ledger network create`'s miners/<id>)",
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
    .option(
      '--genesis <genesis.car>',
      'join an existing devnet: import its genesis (its devnet.json is read from beside the CAR) and sync from peers',
    )
    .option('--bootstrap <multiaddr...>', 'peers to connect to at start (…/p2p/<peer id>)')
    .option('--libp2p-listen <multiaddr...>', 'libp2p listen addresses (default /ip4/127.0.0.1/tcp/0)')
    .action(async (options: DaemonOptions, command: Command) => {
      const repoPath = command.optsWithGlobals<GlobalOptions>().repo ?? defaultRepoPath();
      const snapshot = options.importChain ?? options.importSnapshot;
      const { resolveNetworkDefinition } = await import('../../node/network-definition.js');
      const definition = options.network === undefined ? undefined : resolveNetworkDefinition(options.network);
      const preset = isNetworkName(options.network) ? options.network : undefined;
      // A preset name joins its network only to import a snapshot of it: otherwise it sets the presets.
      const network = preset === undefined || snapshot !== undefined ? definition : undefined;
      if (options.genesis !== undefined) {
        const { importGenesisIntoRepo } = await import('../genesis-import.js');
        await importGenesisIntoRepo(repoPath, options.genesis);
      }
      if (snapshot !== undefined) {
        const { importSnapshotIntoRepo } = await import('../snapshot-import.js');
        await importSnapshotIntoRepo({
          repoPath,
          file: snapshot,
          mode: options.importChain === undefined ? 'snapshot' : 'chain',
          showProgress: true,
          network,
        });
      }
      // Loaded here, not at the top: the server stack would slow down every other command's start.
      const { LedgerNode, stopOnSignal } = await import('../../node/index.js');
      const node = await LedgerNode.start({
        repoPath,
        overrides: { apiPort: options.api, network: preset, maxRequestSize: options.apiMaxReqSize },
        ...(network === undefined ? {} : { network }),
        ...(options.miner === undefined ? {} : { miners: options.miner }),
        p2p: {
          ...(options.bootstrap === undefined ? {} : { bootstrap: options.bootstrap }),
          ...(options.libp2pListen === undefined ? {} : { listen: options.libp2pListen }),
        },
      });
      await stopOnSignal(node);
    });
}
