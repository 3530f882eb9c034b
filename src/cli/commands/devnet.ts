/**
 * `ledger devnet` (and `npm start`): a local chain in one command, as Anvil gives Ethereum
 * developers. The first run creates the devnet in the repo — proof parameters if the cache lacks
 * them (with a progress bar), funded Filecoin and Ethereum accounts whose keys go into the node's
 * wallet, miner t01000 with pre-sealed 2 KiB sectors, the genesis — then it starts the node, the RPC
 * server and the miner and prints what a developer needs: the RPC URL, an admin token, the accounts
 * with their balances and private keys (the Ethereum ones as Anvil prints them). Later runs resume
 * the same chain from disk.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { DevnetAccount, DevnetEthAccount } from '../../node/devnet.js';
import type { LedgerNode } from '../../node/index.js';
import type { ParameterProgress } from '../../proofs/index.js';
import { rpcUrl } from '../../rpc/endpoint.js';
import { FILECOIN_PRECISION, formatFil, parseFil } from '../../types/index.js';
import { integerParser } from '../arguments.js';
import type { GlobalOptions } from '../node-connection.js';
import { createProgress, type Progress } from '../progress.js';

interface DevnetCommandOptions {
  api: number;
  blockTime: number;
  accounts: number;
  ethAccounts: number;
  balance: bigint;
  mine: boolean;
}

function balanceParser(value: string): bigint {
  try {
    const amount = parseFil(value);
    if (amount <= 0n) throw new Error('it must be positive');
    return amount;
  } catch (error) {
    throw new InvalidArgumentError(`--balance: ${(error as Error).message}`);
  }
}

const CIRCUIT_NAMES: Record<string, string> = {
  'winning-post': 'winning PoSt',
  'window-post': 'window PoSt',
  porep: 'PoRep',
};

/** A progress bar that appears only if a parameter actually has to be generated. */
export function parameterProgress(): { onProgress: (event: ParameterProgress) => void; stop: () => void } {
  let progress: Progress | undefined;
  return {
    onProgress: (event) => {
      if (event.phase === 'start') {
        progress ??= createProgress('generating proof parameters (once)', event.total);
        progress.update(event.index, `${CIRCUIT_NAMES[event.circuit] ?? event.circuit} 2 KiB`);
      } else {
        progress?.update(event.index + 1, `${CIRCUIT_NAMES[event.circuit] ?? event.circuit} 2 KiB done`);
      }
    },
    stop: () => progress?.stop(),
  };
}

export function devnetCommand(): Command {
  return new Command('devnet')
    .description(
      'Run a local devnet: created in the repo on first run (funded accounts, miner t01000 with pre-sealed 2 KiB sectors, genesis), resumed afterwards; serves the RPC and mines',
    )
    .option('--api <port>', 'API port on 127.0.0.1 (0 picks a free one)', integerParser('--api', 0, 65535), 1234)
    .option(
      '--block-time <seconds>',
      'seconds per epoch, fixed when the devnet is created (the 2k devnet preset is 4; mainnet is 30)',
      integerParser('--block-time', 1, 3600),
      4,
    )
    .option('--accounts <n>', 'funded accounts to create on first run', integerParser('--accounts', 1, 1000), 10)
    .option(
      '--eth-accounts <n>',
      'funded Ethereum accounts (f410 EthAccounts) to create on first run',
      integerParser('--eth-accounts', 0, 1000),
      10,
    )
    .addOption(
      // A bigint default needs its own description: commander prints defaults with JSON.stringify.
      new Option('--balance <FIL>', 'balance of each funded account (Filecoin and Ethereum) on first run')
        .argParser(balanceParser)
        .default(10_000n * FILECOIN_PRECISION, '10000 FIL'),
    )
    .option('--no-mine', 'serve the chain without mining')
    .action(async (options: DevnetCommandOptions, command: Command) => {
      if (options.mine !== false) {
        // The first block waits on the winning PoSt proving key: read it on a worker thread while the
        // node stack loads. Missing parameters are generated, and reported, by the start below.
        const { preloadWinningPostKey } = await import('../../proofs/index.js');
        preloadWinningPostKey().catch(() => undefined);
      }
      // Loaded here, not at the top: the node stack would slow down every other command's start.
      const { defaultRepoPath, LedgerNode, stopOnSignal } = await import('../../node/index.js');
      const { devnetAccounts, devnetEthAccounts } = await import('../../node/devnet.js');
      const repoPath = command.optsWithGlobals<GlobalOptions>().repo ?? defaultRepoPath();
      const parameters = parameterProgress();
      const started = performance.now();
      let node: LedgerNode;
      try {
        node = await LedgerNode.start({
          repoPath,
          overrides: { apiPort: options.api },
          devnet: {
            blockDelaySecs: BigInt(options.blockTime),
            accounts: options.accounts,
            ethAccounts: options.ethAccounts,
            accountBalance: options.balance,
            mine: options.mine,
            onParameters: parameters.onProgress,
          },
        });
      } finally {
        parameters.stop();
      }
      const devnet = node.chain?.devnet;
      const accounts = devnet === undefined ? [] : devnetAccounts(devnet, node.chain!.chain, node.wallet);
      const ethAccounts = devnet === undefined ? [] : devnetEthAccounts(devnet, node.chain!.chain, node.wallet);
      printBanner(node, accounts, ethAccounts, performance.now() - started);
      await stopOnSignal(node);
    });
}

function printBanner(
  node: LedgerNode,
  accounts: readonly DevnetAccount[],
  ethAccounts: readonly DevnetEthAccount[],
  startMs: number,
): void {
  const chain = node.chain;
  const devnet = chain?.devnet;
  if (chain === undefined || devnet === undefined) return;
  const url = rpcUrl(node.apiAddress, 1);
  const out: string[] = [];
  const rule = '==================';
  out.push(
    '',
    `ledger devnet  ${devnet.networkName}`,
    `genesis ${devnet.genesisCid}  head ${chain.chain.head().height}`,
    '',
  );
  out.push('Available Accounts', rule);
  for (const [i, a] of accounts.entries()) {
    out.push(`(${i}) ${a.address} (${formatFil(a.balance)})${a.isDefault ? '  [default]' : ''}`);
  }
  out.push('', 'Private Keys (Lotus KeyInfo, hex: `ledger wallet import` / `lotus wallet import` read it)', rule);
  for (const [i, a] of accounts.entries()) {
    out.push(`(${i}) ${a.privateKey}`);
  }
  if (ethAccounts.length > 0) {
    out.push('', `Ethereum Accounts (chain id ${chain.params.eip155ChainId})`, rule);
    for (const [i, a] of ethAccounts.entries()) {
      out.push(`(${i}) ${a.ethAddress} ${a.address} (${formatFil(a.balance)})`);
    }
    out.push(
      '',
      'Ethereum Private Keys (MetaMask imports them; so does `ledger wallet import --format hex-eth`)',
      rule,
    );
    for (const [i, a] of ethAccounts.entries()) {
      out.push(`(${i}) ${a.privateKey}`);
    }
  }
  out.push('', 'These keys are for this local devnet only: never send real funds to them.', '');
  out.push(
    'Miner',
    rule,
    `${devnet.miner} (worker ${devnet.worker}; pre-sealed sectors in ${devnet.sectorDirectory})`,
    '',
  );
  out.push(`Block time:  ${devnet.blockDelaySecs} s`);
  out.push(`Repo:        ${node.repo.path}`);
  out.push(`RPC URL:     ${url}`);
  out.push(`Admin token: ${node.repo.readToken() ?? ''}`);
  out.push(`export LEDGER_API_INFO=${node.repo.readToken() ?? ''}:${node.apiAddress}`);
  out.push(
    '',
    `Ready in ${(startMs / 1000).toFixed(2)} s. Ctrl-C stops the node; \`ledger devnet\` again resumes the chain.`,
    '',
  );
  process.stdout.write(`${out.join('\n')}\n`);
}
