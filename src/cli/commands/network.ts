/**
 * `ledger network create <template.json> --out <dir>`: a new network from a Lotus-style genesis
 * template — its genesis CAR, a directory per pre-sealed miner (sectors and worker key, as
 * lotus-seed leaves them) and the network definition that `ledger daemon --network` joins
 * (docs/networks.md). Local work: no node needed.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Command, Option } from 'commander';
import { NETWORK_NAMES, type NetworkName } from '../../node/network.js';
import { integerParser } from '../arguments.js';
import { parameterProgress } from './devnet.js';

interface CreateOptions {
  out: string;
  preset: NetworkName;
  blockTime?: number;
  ethChainId?: number;
  bootstrap?: string[];
  beacon?: string;
}

function readJsonFile(file: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${what} ${file}: ${(error as Error).message}`);
  }
}

async function createAction(templateFile: string, options: CreateOptions): Promise<void> {
  const { createNetwork } = await import('../../node/network-create.js');
  const parameters = parameterProgress();
  let created: Awaited<ReturnType<typeof createNetwork>>;
  try {
    created = await createNetwork(readJsonFile(templateFile, 'the template'), {
      outDir: options.out,
      preset: options.preset,
      ...(options.blockTime === undefined ? {} : { blockDelaySecs: options.blockTime }),
      ...(options.ethChainId === undefined ? {} : { ethChainId: options.ethChainId }),
      ...(options.bootstrap === undefined ? {} : { bootstrap: options.bootstrap }),
      ...(options.beacon === undefined ? {} : { beacon: readJsonFile(options.beacon, 'the beacon schedule') }),
      onParameters: parameters.onProgress,
      onPreSeal: (miner, sectors) => process.stderr.write(`pre-sealing ${sectors} sectors of ${miner}\n`),
    });
  } finally {
    parameters.stop();
  }
  const { definition, definitionFile, minerDirectories } = created;
  const out: string[] = [
    `network ${definition.name}`,
    `genesis ${definition.genesis?.cid}  (${definition.params.blockDelaySecs} s epochs)`,
    `definition ${definitionFile}`,
  ];
  for (const [miner, dir] of minerDirectories) out.push(`miner ${miner}  ${dir}`);
  const first = [...minerDirectories.values()][0];
  out.push(
    '',
    `Start a node: ledger --repo <repo> daemon --network ${relative(process.cwd(), definitionFile) || definitionFile}` +
      (first === undefined ? '' : ` --miner ${relative(process.cwd(), first) || first}`),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

export function networkCommand(): Command {
  const network = new Command('network').description('Networks beyond the devnet: create one from a genesis template');
  network
    .command('create <template.json>')
    .description(
      'Build a network from a Lotus-style genesis template (accounts, multisigs, miners; a miner whose ' +
        'Sectors is a count is pre-sealed here): writes genesis.car, network.json and miners/<id>/ into --out',
    )
    .requiredOption('--out <dir>', 'a new (or empty) directory for the network files')
    .addOption(
      new Option('--preset <name>', 'parameter and miner-policy preset').choices(NETWORK_NAMES).default('devnet'),
    )
    .option(
      '--block-time <seconds>',
      "seconds per epoch (default: the preset's)",
      integerParser('--block-time', 1, 3600),
    )
    .option(
      '--eth-chain-id <id>',
      "the EIP-155 chain id (default: the preset's)",
      integerParser('--eth-chain-id', 1, 2 ** 32 - 1),
    )
    .option('--bootstrap <multiaddr...>', 'bootstrap peers the definition lists (…/p2p/<peer id>)')
    .option('--beacon <file>', 'the beacon schedule, as the definition\'s "Beacon" array (default: a local beacon)')
    .action(createAction);
  return network;
}
