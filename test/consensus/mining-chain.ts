/**
 * A real devnet chain for consensus, mining and sync tests: miner t01000 with two pre-sealed 2 KiB
 * sectors (real seals, cached parameters), its BLS worker key, funded secp and BLS accounts, a
 * SQLite chain store in memory, tipset states and the local beacon. With `{ miners: 2 }` the
 * genesis also holds miner t01001 with its own worker key and its own two sectors, each miner then
 * having half the network's power (forks between two partitioned miners).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBeacon } from '../../src/beacon/index.js';
import { buildGenesis, type GenesisMiner } from '../../src/chain/genesis/index.js';
import { ChainStore, TipSetStates } from '../../src/chain/index.js';
import { bls, secp256k1 } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import type { MinerContext, SignFunction } from '../../src/miner/index.js';
import { ensureParameters, presealSector, sealedCid, unsealedCid } from '../../src/proofs/index.js';
import {
  Address,
  type BlockMsg,
  type FullBlock,
  type Message,
  messageCid,
  messageSigningBytes,
  SignatureType,
  type SignedMessage,
} from '../../src/types/index.js';
import { accountOf, blsKey, devnetTemplate, FIL, GENESIS_TIMESTAMP, message, PARAMS, secpKey } from '../vm/harness.js';

export const MINER = Address.newId(1000n);
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

const keys = new Map<string, { type: 'bls' | 'secp'; privateKey: Uint8Array }>([
  [worker.address.toString(), { type: 'bls', privateKey: worker.privateKey }],
  [worker2.address.toString(), { type: 'bls', privateKey: worker2.privateKey }],
  [carol.address.toString(), { type: 'bls', privateKey: carol.privateKey }],
  [alice.address.toString(), { type: 'secp', privateKey: alice.privateKey }],
]);

/** The wallet's signing, with the test's keys. */
export const sign: SignFunction = async (address, data) => {
  const key = keys.get(address.toString());
  if (key === undefined) throw new Error(`no key for ${address}`);
  return key.type === 'bls'
    ? { type: SignatureType.BLS, data: bls.sign(key.privateKey, data) }
    : { type: SignatureType.Secp256k1, data: secp256k1.sign(key.privateKey, data) };
};

export async function signMessage(from: Address, fields: Partial<Message>): Promise<SignedMessage> {
  const unsigned = message({ from, to: bob.address, value: 1n * FIL, ...fields });
  return { message: unsigned, signature: await sign(from, messageSigningBytes(unsigned)) };
}

export interface MiningChainOptions {
  /** Storage miners in the genesis: t01000 alone (the default) or t01000 and t01001. */
  readonly miners?: 1 | 2;
}

/** A genesis miner with two freshly pre-sealed sectors in `sectorDirectory`. */
async function presealedMiner(
  sectorDirectory: string,
  id: Address,
  workerAddress: Address,
  peerId: string,
): Promise<GenesisMiner> {
  const sectors = [];
  for (let sectorNumber = 0n; sectorNumber < 2n; sectorNumber++) {
    const { commR, commD } = await presealSector({ dir: sectorDirectory, minerId: id.id(), sectorNumber });
    sectors.push({ commR: sealedCid(commR), commD: unsealedCid(commD), sectorNumber, proofType: 5 });
  }
  return {
    id,
    owner: workerAddress,
    worker: workerAddress,
    peerId: new TextEncoder().encode(peerId),
    sectorSize: 2048n,
    sectors,
  };
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
  const db = LedgerDatabase.open(':memory:');
  const genesis = buildGenesis(db.blockstore, devnetTemplate({ accounts, miners }), PARAMS);
  const chain = ChainStore.initialize({ db, params: PARAMS }, genesis.cid);
  const states = new TipSetStates(chain, db);
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

/** The block with its messages, in the order createBlock listed them. */
export function fullBlock(block: BlockMsg, messages: readonly SignedMessage[]): FullBlock {
  const blsMessages = messages.filter((m) => m.signature.type === SignatureType.BLS).map((m) => m.message);
  const secpkMessages = messages.filter((m) => m.signature.type !== SignatureType.BLS);
  expect(blsMessages.map((m) => messageCid(m).toString())).toEqual(block.blsMessages.map(String));
  return { header: block.header, blsMessages, secpkMessages };
}
