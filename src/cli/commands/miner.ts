/**
 * `ledger miner init|info|sectors …|proving …`: the node's storage miners, shaped like lotus-miner
 * (filecoin-project/lotus `cmd/lotus-miner/init.go`, `info.go`, `sectors.go`, `proving.go`). A node
 * runs several miners: `--miner <addr>` picks one, the default is the first (a devnet's genesis miner).
 */
import { decode as decodeCbor } from '@ipld/dag-cbor';
import { Command, InvalidArgumentError } from 'commander';
import type { CID } from 'multiformats/cid';
import { bitFieldFromLotusJson } from '../../ipld/index.js';
import {
  ensureParameters,
  RegisteredSealProof,
  sectorSize as sealProofSectorSize,
  windowPostProofOf,
} from '../../proofs/index.js';
import type { LedgerApi } from '../../rpc/client.js';
import type { SectorInfoJson } from '../../rpc/methods/storage.js';
import { STORAGE_POWER_ACTOR_ID } from '../../state/index.js';
import {
  Address,
  AddressProtocol,
  formatFil,
  type Message,
  messageToLotusJson,
  parseFil,
  readJsonBytes,
  readJsonCid,
  readJsonInt64,
  readJsonObject,
  signedMessageFromLotusJson,
  signedMessageToLotusJson,
} from '../../types/index.js';
import { toHex } from '../../utils/bytes.js';
import { LedgerError } from '../../utils/errors.js';
import { encodeCreateMinerParams, PowerMethod } from '../../vm/index.js';
import { parseAddressArgument } from '../arguments.js';
import { formatBytes } from '../byte-progress.js';
import { connectToNode, type GlobalOptions, globalOptions } from '../node-connection.js';
import { parameterProgress } from './devnet.js';
import { waitForMessage } from './state.js';

/** Sector sizes as lotus-miner's `--sector-size` names them, with the V1_1 seal proof of each. */
const SEAL_PROOF_BY_SIZE: Record<string, RegisteredSealProof> = {
  '2KiB': RegisteredSealProof.StackedDrg2KiBV1_1,
  '8MiB': RegisteredSealProof.StackedDrg8MiBV1_1,
  '512MiB': RegisteredSealProof.StackedDrg512MiBV1_1,
  '32GiB': RegisteredSealProof.StackedDrg32GiBV1_1,
  '64GiB': RegisteredSealProof.StackedDrg64GiBV1_1,
};

function sealProofArgument(value: string): RegisteredSealProof {
  const proof = SEAL_PROOF_BY_SIZE[value.replace(/\s+/g, '')];
  if (proof === undefined) {
    throw new InvalidArgumentError(
      `unknown sector size ${JSON.stringify(value)}: one of ${Object.keys(SEAL_PROOF_BY_SIZE).join(', ')}`,
    );
  }
  return proof;
}

function filArgument(value: string): bigint {
  try {
    return parseFil(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function sectorNumberArgument(value: string): bigint {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${JSON.stringify(value)} is not a sector number`);
  return BigInt(value);
}

/** A Lotus JSON integer: a number, or a decimal string for big integers (token amounts, power). */
function big(value: unknown, path: string): bigint {
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return readJsonInt64(value, path);
}

/** Sectors the default worker funding covers: each needs a pre-commit deposit and an initial pledge. */
const FUNDED_SECTORS = 4n;
/** Gas for the worker's messages (pre-commits, prove-commits, window PoSts) on a devnet: a round figure. */
const WORKER_GAS_ALLOWANCE = parseFil('1');
/** Lotus's default committed-capacity lifetime (`node/config/def.go`): 540 days of 2,880 epochs. */
const CC_LIFETIME_EPOCHS = 540 * 2880;

interface MinerOptions {
  miner?: Address;
}

function minerOption(command: Command): Command {
  return command.option(
    '--miner <address>',
    'the miner, when the node runs several (default: the first)',
    parseAddressArgument,
  );
}

/** The miner a command acts on: the one asked for, or the node's first (ActorAddress). */
async function chosenMiner(api: LedgerApi, options: MinerOptions): Promise<string> {
  return options.miner?.toString() ?? (await api.ActorAddress());
}

const minerParam = (options: MinerOptions) => options.miner?.toString() ?? null;

function write(lines: readonly string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(''));
}

/** A column-aligned table, as Lotus's tablewriter prints them (two spaces between columns). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((text) => `${text}\n`).join('');
}

async function pushAndWait(
  api: LedgerApi,
  global: GlobalOptions,
  message: Message,
  what: string,
): Promise<{ cid: CID; returned: Uint8Array }> {
  const signed = signedMessageFromLotusJson(await api.MpoolPushMessage(messageToLotusJson(message), null), what);
  const cid = readJsonCid(signedMessageToLotusJson(signed).CID, 'CID');
  process.stdout.write(`${what}: message ${cid}, waiting for it to land…\n`);
  const lookup = readJsonObject(await waitForMessage(global, cid, 600_000), 'MsgLookup');
  const receipt = readJsonObject(lookup.Receipt, 'MsgLookup.Receipt');
  const exitCode = readJsonInt64(receipt.ExitCode, 'Receipt.ExitCode');
  if (exitCode !== 0n)
    throw new LedgerError('ERR_MESSAGE_FAILED', `${what} failed: message ${cid} exited with code ${exitCode}`);
  return {
    cid,
    returned: receipt.Return === null ? new Uint8Array() : readJsonBytes(receipt.Return, 'Receipt.Return'),
  };
}

/** The key address behind `address` (an ID address resolves through StateAccountKey). */
async function keyAddress(api: LedgerApi, address: Address): Promise<Address> {
  if (address.protocol !== AddressProtocol.ID) return address;
  return Address.fromString(await api.StateAccountKey(address.toString(), null));
}

interface InitOptions {
  owner: Address;
  worker?: Address;
  sectorSize: RegisteredSealProof;
  workerFunds?: bigint;
  deposit?: bigint;
}

/** The initial pledge of one committed-capacity sector now (110% of it, as the estimator answers). */
async function sectorPledge(api: LedgerApi, sealProof: RegisteredSealProof): Promise<bigint> {
  const size = Number(sealProofSectorSize(sealProof));
  return big(await api.StateMinerInitialPledgeForSector(CC_LIFETIME_EPOCHS, size, 0, null), 'InitialPledge');
}

/** The worker: given, or the owner when it is a BLS key, or a new BLS key funded by the owner. */
async function chooseWorker(
  api: LedgerApi,
  global: GlobalOptions,
  options: InitOptions,
  pledge: bigint,
): Promise<Address> {
  if (options.worker !== undefined) {
    const key = await keyAddress(api, options.worker);
    if (key.protocol !== AddressProtocol.BLS) {
      throw new LedgerError(
        'ERR_BAD_WORKER',
        `worker ${options.worker} is not a BLS key: a worker signs blocks with BLS`,
      );
    }
    return options.worker;
  }
  const ownerKey = await keyAddress(api, options.owner);
  if (ownerKey.protocol === AddressProtocol.BLS) return options.owner;
  const worker = Address.fromString(await api.WalletNew('bls'));
  const funds = options.workerFunds ?? FUNDED_SECTORS * 2n * pledge + WORKER_GAS_ALLOWANCE;
  process.stdout.write(`Created worker key ${worker}; funding it with ${formatFil(funds)} from ${options.owner}\n`);
  await pushAndWait(api, global, transfer(options.owner, worker, funds), 'Funding the worker');
  return worker;
}

function transfer(from: Address, to: Address, value: bigint): Message {
  return unsignedMessage({ from, to, value, method: 0n, params: new Uint8Array() });
}

function unsignedMessage(fields: Pick<Message, 'from' | 'to' | 'value' | 'method' | 'params'>): Message {
  return { nonce: 0n, gasLimit: 0n, gasFeeCap: 0n, gasPremium: 0n, ...fields };
}

async function initMiner(global: GlobalOptions, options: InitOptions): Promise<void> {
  const api = await connectToNode(global);
  const windowPoStProofType = windowPostProofOf(options.sectorSize);
  if (windowPoStProofType === undefined)
    throw new LedgerError('ERR_BAD_SECTOR_SIZE', 'no window PoSt proof for this sector size');
  const pledge = await sectorPledge(api, options.sectorSize);
  const worker = await chooseWorker(api, global, options, pledge);
  // FIP-0077 locks a creation deposit from the value sent; one sector's pledge covers it where the
  // consensus minimum is a few sectors (a devnet), the rest stays in the miner's available balance.
  const deposit = options.deposit ?? pledge;
  process.stdout.write(`Creating a miner: owner ${options.owner}, worker ${worker}, deposit ${formatFil(deposit)}\n`);
  const { returned } = await pushAndWait(
    api,
    global,
    unsignedMessage({
      from: options.owner,
      to: Address.newId(STORAGE_POWER_ACTOR_ID),
      value: deposit,
      method: BigInt(PowerMethod.CreateMiner),
      params: encodeCreateMinerParams({
        owner: options.owner,
        worker,
        windowPoStProofType: BigInt(windowPoStProofType),
        peer: new Uint8Array(),
        multiaddrs: [],
      }),
    }),
    'CreateMiner',
  );
  const [idBytes, robustBytes] = decodeCbor(returned) as [Uint8Array, Uint8Array];
  const id = Address.fromBytes(idBytes);
  process.stdout.write(`New miners address is: ${id} (${Address.fromBytes(robustBytes)})\n`);
  await api.StorageMinerAdd(id.toString());
  process.stdout.write(
    `Miner ${id} is running in the node: pledge sectors with \`ledger miner sectors pledge --miner ${id}\`\n`,
  );
}

function percent(part: bigint, total: bigint): string {
  return total === 0n ? '0.0000%' : `${(Number((part * 1_000_000n) / total) / 10_000).toFixed(4)}%`;
}

const size = (bytes: bigint) => formatBytes(Number(bytes));

async function printInfo(global: GlobalOptions, options: MinerOptions): Promise<void> {
  const api = await connectToNode(global);
  const miner = await chosenMiner(api, options);
  const [info, power, counts, available, actor, sectors] = await Promise.all([
    api.StateMinerInfo(miner, null),
    api.StateMinerPower(miner, null),
    api.StateMinerSectorCount(miner, null),
    api.StateMinerAvailableBalance(miner, null),
    api.StateGetActor(miner, null),
    api.SectorsList(minerParam({ miner: Address.fromString(miner) })),
  ]);
  const workerBalance = await api.WalletBalance(info.Worker);
  const sectorSize = big(info.SectorSize, 'SectorSize');
  const raw = big(power.MinerPower.RawBytePower, 'RawBytePower');
  const totalRaw = big(power.TotalPower.RawBytePower, 'RawBytePower');
  const qa = big(power.MinerPower.QualityAdjPower, 'QualityAdjPower');
  const totalQa = big(power.TotalPower.QualityAdjPower, 'QualityAdjPower');
  const live = big(counts.Live, 'Live');
  const faulty = big(counts.Faulty, 'Faulty');
  const states = new Map<string, number>();
  for (const number of sectors) {
    const status = await api.SectorsStatus(Number(number), false, miner);
    states.set(status.State, (states.get(status.State) ?? 0) + 1);
  }
  write([
    `Miner: ${miner} (${size(sectorSize)} sectors)`,
    `Owner:  ${info.Owner}`,
    `Worker: ${info.Worker}`,
    `Power: ${size(qa)} / ${size(totalQa)} (${percent(qa, totalQa)})`,
    `\tRaw: ${size(raw)} / ${size(totalRaw)} (${percent(raw, totalRaw)})`,
    `\tCommitted: ${size(live * sectorSize)}`,
    `\tProving: ${size((live - faulty) * sectorSize)}${faulty > 0n ? ` (${size(faulty * sectorSize)} Faulty, ${percent(faulty, live)})` : ''}`,
    ...(power.HasMinPower ? [] : ['Below minimum power threshold, no blocks will be won']),
    '',
    `Miner Balance:    ${formatFil(big(actor.Balance, 'Balance'))}`,
    `      Available:  ${formatFil(big(available, 'AvailableBalance'))}`,
    `Worker Balance:   ${formatFil(big(workerBalance, 'WalletBalance'))}`,
    '',
    'Sectors:',
    `\tTotal: ${sectors.length}`,
    ...[...states].sort(([a], [b]) => a.localeCompare(b)).map(([state, count]) => `\t${state}: ${count}`),
  ]);
}

/** Lotus `sectors status`: the pipeline's record, then (with --on-chain-info) the chain's. */
export function formatSectorStatus(status: SectorInfoJson): string {
  const cid = (json: { '/': string } | null) => (json === null ? '<nil>' : json['/']);
  const hex = (base64: string | null) => (base64 === null ? '' : toHex(Buffer.from(base64, 'base64')));
  const lines = [
    `SectorID:\t${status.SectorID}`,
    `Status:\t\t${status.State}`,
    `CIDcommD:\t${cid(status.CommD)}`,
    `CIDcommR:\t${cid(status.CommR)}`,
    `Ticket:\t\t${hex(status.Ticket.Value)}`,
    `TicketH:\t${status.Ticket.Epoch}`,
    `Seed:\t\t${hex(status.Seed.Value)}`,
    `SeedH:\t\t${status.Seed.Epoch}`,
    `Precommit:\t${cid(status.PreCommitMsg)}`,
    `Commit:\t\t${cid(status.CommitMsg)}`,
    `Proof:\t\t${hex(status.Proof)}`,
    `Last Error:\t\t${status.LastErr === '' ? '<none>' : status.LastErr}`,
  ];
  if (status.OnChain !== undefined) {
    const onChain = status.OnChain;
    lines.push('', 'OnChain Info');
    if (onChain === null) lines.push('\tnot on chain yet');
    else {
      lines.push(
        `SealProof:\t\t${onChain.SealProof}`,
        `Activation:\t\t${onChain.Activation}`,
        `Expiration:\t\t${onChain.Expiration}`,
        `DealWeight:\t\t${onChain.DealWeight}`,
        `VerifiedDealWeight:\t${onChain.VerifiedDealWeight}`,
        `InitialPledge:\t\t${formatFil(big(onChain.InitialPledge, 'InitialPledge'))}`,
        '',
        'Partition Info',
        `Deadline:\t${onChain.Deadline}`,
        `Partition:\t${onChain.Partition}`,
      );
    }
  }
  return lines.map((line) => `${line}\n`).join('');
}

async function printSectorsList(global: GlobalOptions, options: MinerOptions): Promise<void> {
  const api = await connectToNode(global);
  const miner = await chosenMiner(api, options);
  const rows: string[][] = [];
  for (const number of await api.SectorsList(miner)) {
    const status = await api.SectorsStatus(Number(number), true, miner);
    const onChain = status.OnChain ?? null;
    rows.push([
      String(status.SectorID),
      status.State,
      onChain === null ? 'NO' : 'YES',
      onChain === null ? '' : String(onChain.Activation),
      onChain === null ? '' : String(onChain.Expiration),
    ]);
  }
  process.stdout.write(`Miner: ${miner}\n${formatTable(['ID', 'State', 'OnChain', 'Activation', 'Expiration'], rows)}`);
}

/** Sealing a sector needs the PoRep parameters: generated here once, as the devnet generates PoSt's. */
async function ensurePoRepParameters(): Promise<void> {
  const progress = parameterProgress();
  try {
    await ensureParameters({ porep: true, onProgress: progress.onProgress });
  } finally {
    progress.stop();
  }
}

interface DeadlineInfoJson {
  CurrentEpoch: unknown;
  PeriodStart: unknown;
  Index: unknown;
  Open: unknown;
  Close: unknown;
  Challenge: unknown;
  FaultCutoff: unknown;
  WPoStProvingPeriod: unknown;
  WPoStPeriodDeadlines: unknown;
}

async function printProvingInfo(global: GlobalOptions, options: MinerOptions): Promise<void> {
  const api = await connectToNode(global);
  const miner = await chosenMiner(api, options);
  const [deadline, counts, status] = await Promise.all([
    api.StateMinerProvingDeadline(miner, null) as Promise<DeadlineInfoJson>,
    api.StateMinerSectorCount(miner, null),
    api.ProvingStatus(miner),
  ]);
  const epoch = (name: keyof DeadlineInfoJson) => big(deadline[name], name);
  const current = epoch('CurrentEpoch');
  const period = epoch('WPoStProvingPeriod');
  const at = (value: bigint) =>
    `${value} (${value >= current ? 'in' : 'ago'} ${value >= current ? value - current : current - value} epochs)`;
  const live = big(counts.Live, 'Live');
  const faulty = big(counts.Faulty, 'Faulty');
  write([
    `Miner: ${miner}`,
    `Current Epoch:           ${current}`,
    `Proving Period Boundary: ${epoch('PeriodStart') % period}`,
    `Proving Period Start:    ${at(epoch('PeriodStart'))}`,
    `Next Period Start:       ${at(epoch('PeriodStart') + period)}`,
    `Proving:                 ${status.Paused ? 'paused (`ledger miner proving resume` resumes it)' : 'running'}`,
    '',
    `Faults:      ${faulty} (${percent(faulty, live)})`,
    '',
    `Deadline Index:       ${epoch('Index')}`,
    `Deadline Open:        ${at(epoch('Open'))}`,
    `Deadline Close:       ${at(epoch('Close'))}`,
    `Deadline Challenge:   ${at(epoch('Challenge'))}`,
    `Deadline FaultCutoff: ${at(epoch('FaultCutoff'))}`,
  ]);
}

const bitCount = (json: unknown, path: string) => bitFieldFromLotusJson(json, path).size;

async function printProvingDeadlines(global: GlobalOptions, options: MinerOptions): Promise<void> {
  const api = await connectToNode(global);
  const miner = await chosenMiner(api, options);
  const [deadlines, current] = await Promise.all([
    api.StateMinerDeadlines(miner, null),
    api.StateMinerProvingDeadline(miner, null) as Promise<DeadlineInfoJson>,
  ]);
  const currentIndex = big(current.Index, 'Index');
  const rows: string[][] = [];
  for (const [index, deadline] of deadlines.entries()) {
    const partitions = (await api.StateMinerPartitions(miner, index, null)) ?? [];
    let sectors = 0n;
    let faults = 0n;
    for (const partition of partitions) {
      sectors += bitCount(partition.AllSectors, 'AllSectors');
      faults += bitCount(partition.FaultySectors, 'FaultySectors');
    }
    rows.push([
      `${index}${BigInt(index) === currentIndex ? ' (current)' : ''}`,
      String(partitions.length),
      `${sectors} (${faults})`,
      String(bitCount(deadline.PostSubmissions, 'PostSubmissions')),
    ]);
  }
  process.stdout.write(
    `Miner: ${miner}\n${formatTable(['deadline', 'partitions', 'sectors (faults)', 'proven partitions'], rows)}`,
  );
}

async function printProvingFaults(global: GlobalOptions, options: MinerOptions): Promise<void> {
  const api = await connectToNode(global);
  const miner = await chosenMiner(api, options);
  const deadlines = await api.StateMinerDeadlines(miner, null);
  const rows: string[][] = [];
  for (const index of deadlines.keys()) {
    const partitions = (await api.StateMinerPartitions(miner, index, null)) ?? [];
    for (const [partition, info] of partitions.entries()) {
      for (const sector of bitFieldFromLotusJson(info.FaultySectors, 'FaultySectors').values()) {
        rows.push([String(index), String(partition), String(sector)]);
      }
    }
  }
  process.stdout.write(`Miner: ${miner}\n${formatTable(['deadline', 'partition', 'sectors'], rows)}`);
}

function printProvingStatus(label: string, status: { Miner: string; Paused: boolean }): void {
  process.stdout.write(`${label} window PoSt of ${status.Miner}: ${status.Paused ? 'paused' : 'running'}\n`);
}

export function minerCommand(): Command {
  const miner = new Command('miner').description("Manage the node's storage miners (as lotus-miner does)");

  miner
    .command('init')
    .description('Create a miner through the power actor (CreateMiner) and start running it in the node')
    .requiredOption(
      '--owner <address>',
      'the owner: a funded wallet key that pays for the creation',
      parseAddressArgument,
    )
    .option(
      '--worker <address>',
      'the worker, a BLS key in the wallet (default: the owner if BLS, else a new key)',
      parseAddressArgument,
    )
    .option('--sector-size <size>', 'the sector size', sealProofArgument, RegisteredSealProof.StackedDrg2KiBV1_1)
    .option(
      '--worker-funds <FIL>',
      'what a new worker key gets from the owner (default: 4 sectors × (pre-commit deposit + pledge) + 1 FIL for gas)',
      filArgument,
    )
    .option('--deposit <FIL>', "value sent with CreateMiner (default: one sector's initial pledge)", filArgument)
    .action((options: InitOptions, command: Command) => initMiner(globalOptions(command), options));

  minerOption(miner.command('info').description("Print the miner's power, balances and sectors")).action(
    (options: MinerOptions, command: Command) => printInfo(globalOptions(command), options),
  );

  const sectors = miner.command('sectors').description("The miner's sectors");
  minerOption(
    sectors
      .command('pledge')
      .description('Seal a committed-capacity sector (generates the PoRep parameters on first use)'),
  ).action(async (options: MinerOptions, command: Command) => {
    await ensurePoRepParameters();
    const api = await connectToNode(globalOptions(command));
    const id = await api.PledgeSector(minerParam(options));
    process.stdout.write(`Created CC sector: ${id.Number}\n`);
  });
  minerOption(sectors.command('list').description("List the miner's sectors and their states")).action(
    (options: MinerOptions, command: Command) => printSectorsList(globalOptions(command), options),
  );
  minerOption(
    sectors
      .command('status')
      .description("Print a sector's sealing state")
      .argument('<sectorNumber>', 'the sector number', sectorNumberArgument)
      .option('--on-chain-info', 'also print the on-chain info and the partition'),
  ).action(async (number: bigint, options: MinerOptions & { onChainInfo?: boolean }, command: Command) => {
    const api = await connectToNode(globalOptions(command));
    const status = await api.SectorsStatus(Number(number), options.onChainInfo === true, minerParam(options));
    process.stdout.write(formatSectorStatus(status));
  });

  const proving = miner.command('proving').description("The miner's window PoSt");
  minerOption(proving.command('info').description('Print the current proving period and deadline')).action(
    (options: MinerOptions, command: Command) => printProvingInfo(globalOptions(command), options),
  );
  minerOption(
    proving.command('deadlines').description('Print each deadline: partitions, sectors, faults, proven'),
  ).action((options: MinerOptions, command: Command) => printProvingDeadlines(globalOptions(command), options));
  minerOption(
    proving.command('faults').description('Print the faulty sectors with their deadline and partition'),
  ).action((options: MinerOptions, command: Command) => printProvingFaults(globalOptions(command), options));
  minerOption(proving.command('pause').description("Stop submitting the miner's window PoSts")).action(
    async (options: MinerOptions, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      printProvingStatus('Paused', await api.ProvingPause(minerParam(options)));
    },
  );
  minerOption(proving.command('resume').description("Resume the miner's window PoSts")).action(
    async (options: MinerOptions, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      printProvingStatus('Resumed', await api.ProvingResume(minerParam(options)));
    },
  );
  return miner;
}
