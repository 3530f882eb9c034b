/**
 * The chain fixture with real mining: miner t01000 with two really pre-sealed 2 KiB sectors (cached
 * parameters), its BLS worker key, funded secp and BLS accounts, and the local beacon, so blocks
 * can be made as the miner makes them (election, winning PoSt, signatures). With `{ miners: 2 }`
 * the genesis also holds miner t01001 with its own worker key and two sectors, each miner then
 * having half the network's power (forks between two partitioned miners).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBeacon } from '../../src/beacon/index.js';
import type { ChainStore, TipSetStates } from '../../src/chain/index.js';
import { BlockValidator } from '../../src/consensus/index.js';
import { bls, secp256k1 } from '../../src/crypto/index.js';
import type { LedgerDatabase } from '../../src/db/index.js';
import {
  attemptElection,
  type BlockTemplate,
  createBlock,
  type MinerContext,
  type SignFunction,
  winningBlockTemplate,
} from '../../src/miner/index.js';
import { ensureParameters } from '../../src/proofs/index.js';
import {
  Address,
  type BlockMsg,
  type FullBlock,
  type Message,
  messageCid,
  messageSigningBytes,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../../src/types/index.js';
import { accountOf, devnetTemplate, FIL, GENESIS_TIMESTAMP, MINER, PARAMS, presealedMiner } from './genesis.js';
import { blsKey, secpKey } from './keys.js';
import { message } from './messages.js';
import { TestChain } from './test-chain.js';

export { MINER };
export const worker = blsKey('consensus-worker');
/** The second miner, in the genesis only with `miningChain({ miners: 2 })`. */
export const MINER2 = Address.newId(1001n);
export const worker2 = blsKey('consensus-worker-2');
export const alice = secpKey('consensus-alice');
export const carol = blsKey('consensus-carol');
export const bob = secpKey('consensus-bob');

export interface MiningChain {
  readonly db: LedgerDatabase;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  readonly beacon: LocalBeacon;
  readonly ctx: MinerContext;
  readonly sign: SignFunction;
  remove(): Promise<void>;
}

const signingKeys = new Map<string, { type: 'bls' | 'secp'; privateKey: Uint8Array }>([
  [worker.address.toString(), { type: 'bls', privateKey: worker.privateKey }],
  [worker2.address.toString(), { type: 'bls', privateKey: worker2.privateKey }],
  [carol.address.toString(), { type: 'bls', privateKey: carol.privateKey }],
  [alice.address.toString(), { type: 'secp', privateKey: alice.privateKey }],
]);

/** The wallet's signing, with the fixture's keys. */
export const sign: SignFunction = async (address, data) => {
  const key = signingKeys.get(address.toString());
  if (key === undefined) throw new Error(`no key for ${address}`);
  return key.type === 'bls'
    ? { type: SignatureType.BLS, data: bls.sign(key.privateKey, data) }
    : { type: SignatureType.Secp256k1, data: secp256k1.sign(key.privateKey, data) };
};

/** A signed transfer of 1 FIL to bob from one of the fixture's keys; `fields` override. */
export async function signMessage(from: Address, fields: Partial<Message>): Promise<SignedMessage> {
  const unsigned = message({ from, to: bob.address, value: 1n * FIL, ...fields });
  return { message: unsigned, signature: await sign(from, messageSigningBytes(unsigned)) };
}

export interface MiningChainOptions {
  /** Storage miners in the genesis: t01000 alone (the default) or t01000 and t01001. */
  readonly miners?: 1 | 2;
}

export async function miningChain(options: MiningChainOptions = {}): Promise<MiningChain> {
  await ensureParameters();
  // One directory for every miner's sectors: their files are named by miner and sector number.
  const sectorDirectory = await mkdtemp(join(tmpdir(), 'ledger-consensus-'));
  const miners = [await presealedMiner(sectorDirectory, MINER, worker.address, 'peer-consensus')];
  const accounts = [
    accountOf(worker.address, 1000n * FIL),
    accountOf(alice.address, 100n * FIL),
    accountOf(carol.address, 100n * FIL),
  ];
  if (options.miners === 2) {
    miners.push(await presealedMiner(sectorDirectory, MINER2, worker2.address, 'peer-consensus-2'));
    accounts.push(accountOf(worker2.address, 1000n * FIL));
  }
  const { db, chain, states } = TestChain.create({ template: devnetTemplate({ accounts, miners }) });
  const beacon = LocalBeacon.fromSeed(
    new TextEncoder().encode('consensus-test-beacon'),
    GENESIS_TIMESTAMP,
    PARAMS.blockDelaySecs,
  );
  return {
    db,
    chain,
    states,
    beacon,
    ctx: { chain, states, beacon, params: PARAMS, sectorDirectory },
    sign,
    remove: () => rm(sectorDirectory, { recursive: true, force: true }),
  };
}

/** The block validator over the fixture's chain and beacon; `clock` (ms) stands in for the time now. */
export function validatorOf(mc: MiningChain, clock?: () => number): BlockValidator {
  return new BlockValidator({
    chain: mc.chain,
    states: mc.states,
    beacon: mc.beacon,
    params: PARAMS,
    ...(clock === undefined ? {} : { clock }),
  });
}

export interface MineOptions {
  /** Default MINER. */
  readonly miner?: Address;
  /** The first round to try; default the one after `base`. */
  readonly firstRound?: bigint;
  /** Where to mine (a node's own chain and states); default the fixture's. */
  readonly ctx?: MinerContext;
}

/**
 * The block the miner makes in the first round from `firstRound` it wins on `base` (lost
 * elections are null rounds), with these messages: election, winning PoSt and signatures as the
 * mining loop does them.
 */
export async function mineBlock(
  mc: MiningChain,
  base: TipSet,
  messages: SignedMessage[],
  options: MineOptions = {},
): Promise<{ block: FullBlock; msg: BlockMsg; template: BlockTemplate }> {
  const miner = options.miner ?? MINER;
  const ctx = options.ctx ?? mc.ctx;
  for (let round = options.firstRound ?? base.height + 1n; round < base.height + 20n; round++) {
    const win = await attemptElection(ctx, miner, base, round, sign);
    if (win === null) continue;
    const template = winningBlockTemplate({
      miner,
      base,
      round,
      win,
      messages,
      blockDelaySecs: PARAMS.blockDelaySecs,
    });
    const msg = await createBlock(ctx, template, sign);
    return { block: fullBlock(msg, messages), msg, template };
  }
  throw new Error(`miner ${miner} won no round in 20`);
}

/** The block with its messages, in the order createBlock listed them. */
export function fullBlock(block: BlockMsg, messages: readonly SignedMessage[]): FullBlock {
  const blsMessages = messages.filter((m) => m.signature.type === SignatureType.BLS).map((m) => m.message);
  const secpkMessages = messages.filter((m) => m.signature.type !== SignatureType.BLS);
  expect(blsMessages.map((m) => messageCid(m).toString())).toEqual(block.blsMessages.map(String));
  return { header: block.header, blsMessages, secpkMessages };
}
