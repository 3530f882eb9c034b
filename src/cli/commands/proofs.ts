/**
 * `ledger proofs params` and `ledger proofs preseal`: local work, no running node needed.
 * Results go to stdout; progress goes to stderr.
 */
import { Command, InvalidArgumentError } from 'commander';
import {
  type Circuit,
  ensureParameters,
  type ParameterStatus,
  type PreSealResult,
  parameterDir,
  parameterStatus,
  preSeal,
} from '../../proofs/index.js';
import { Address, AddressProtocol, type Network } from '../../types/index.js';
import { createProgress } from '../progress.js';

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function describe(status: ParameterStatus): string {
  const sizes = `params ${formatBytes(status.paramsBytes)}, vk ${formatBytes(status.vkBytes)}`;
  switch (status.state) {
    case 'complete':
      return status.generated ? `generated in ${status.seconds.toFixed(1)} s (${sizes})` : `present (${sizes})`;
    case 'missing':
      return 'missing';
    case 'damaged':
      return `damaged: ${status.problem ?? 'unreadable'}`;
  }
}

const CIRCUIT_LABELS: Record<Circuit, string> = {
  'winning-post': 'winning PoSt 2 KiB',
  'window-post': 'window PoSt 2 KiB',
  porep: 'PoRep 2 KiB',
};

function printStatuses(dir: string, statuses: readonly ParameterStatus[]): void {
  process.stdout.write(`parameter cache: ${dir}\n`);
  for (const status of statuses) {
    process.stdout.write(`  ${CIRCUIT_LABELS[status.circuit].padEnd(20)} ${describe(status)}\n`);
  }
}

async function paramsAction(options: { porep?: boolean; dir?: string; check?: boolean }): Promise<void> {
  const dir = parameterDir(options.dir);
  const selection = { dir, porep: options.porep === true };
  if (options.check === true) {
    const statuses = parameterStatus(selection);
    printStatuses(dir, statuses);
    if (statuses.some((s) => s.state !== 'complete')) process.exitCode = 1;
    return;
  }
  const missing = parameterStatus(selection).filter((s) => s.state !== 'complete');
  if (missing.length === 0) {
    printStatuses(dir, await ensureParameters(selection));
    return;
  }
  const progress = createProgress('proof parameters', missing.length);
  const wasMissing = (circuit: Circuit) => missing.some((s) => s.circuit === circuit);
  let done = 0;
  let statuses: ParameterStatus[];
  try {
    statuses = await ensureParameters({
      ...selection,
      onProgress: (event) => {
        if (!wasMissing(event.circuit)) return;
        const label = CIRCUIT_LABELS[event.circuit];
        if (event.phase === 'start') {
          progress.update(done, `generating ${label}`);
        } else {
          // Another process may have made the files while this one waited for them.
          const how = event.status.generated ? `generated in ${event.status.seconds.toFixed(1)} s` : 'made elsewhere';
          progress.update(++done, `${label} ${how}`);
        }
      },
    });
  } finally {
    progress.stop();
  }
  printStatuses(dir, statuses);
}

function sectorCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidArgumentError('expected a positive integer');
  }
  return value;
}

interface MinerOption {
  address: Address;
  /** The manifest writes addresses with the network char the miner was given with. */
  network: Network;
}

function minerAddress(text: string): MinerOption {
  let address: Address;
  try {
    address = Address.fromString(text);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
  if (address.protocol !== AddressProtocol.ID) throw new InvalidArgumentError('expected an ID address such as t01000');
  return { address, network: text[0] as Network };
}

async function presealAction(options: { miner: MinerOption; sectors: number; dir: string }): Promise<void> {
  const progress = createProgress('pre-sealing', options.sectors);
  let result: PreSealResult;
  try {
    result = await preSeal({
      miner: options.miner.address,
      sectors: options.sectors,
      dir: options.dir,
      network: options.miner.network,
      onProgress: (done) => progress.update(done, `sector ${done - 1} sealed`),
    });
  } finally {
    progress.stop();
  }
  process.stdout.write(`${JSON.stringify(result.manifest, null, 2)}\n`);
  process.stderr.write(`wrote ${result.manifestPath} and ${result.keyPath}\n`);
}

export function proofsCommand(): Command {
  const proofs = new Command('proofs').description('Storage proofs: Groth16 parameters and genesis pre-sealing');

  proofs
    .command('params')
    .description(
      'Generate the missing devnet Groth16 parameters (2 KiB winning and window PoSt; PoRep with --porep) ' +
        'from the fixed public seed, or check them with --check. Existing complete files are kept.',
    )
    .option('--porep', 'include the PoRep circuit (1 GiB, many minutes of CPU); needed to seal, not to mine')
    .option('--dir <path>', 'the parameter cache (default: $LEDGER_PROOF_PARAMS or ~/.cache/ledger-node/proof-params)')
    .option('--check', 'only report what is there; exit with 1 when anything is missing')
    .action(paramsAction);

  proofs
    .command('preseal')
    .description(
      'Pre-seal genesis sectors as lotus-seed does (PC1 + PC2, no SNARK); prints the genesis-miner ' +
        'manifest as JSON and writes pre-seal-<miner>.json and .key into the directory',
    )
    .requiredOption('--miner <address>', 'the miner ID address, e.g. t01000', minerAddress)
    .requiredOption('--sectors <n>', 'how many 2 KiB sectors', sectorCount)
    .requiredOption('--dir <path>', 'where the sector files and manifest go')
    .action(presealAction);

  return proofs;
}
