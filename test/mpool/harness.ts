/**
 * A real chain for message pool tests: a SQLite database in a temporary directory, a genesis with
 * funded secp256k1 accounts and one miner built by the real genesis builder, the real ChainStore
 * and TipSetStates, and a way to extend the chain with blocks carrying messages (headers are not
 * signed: the chain store stores what consensus accepted, and these tests are about the pool).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGenesis } from '../../src/chain/genesis/index.js';
import { ChainStore, childBaseFee, TipSetStates, txMetaCidOf } from '../../src/chain/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { type MessagePool, type MessagePoolOptions, mpoolChainOf, MessagePool as Pool } from '../../src/mpool/index.js';
import {
  type Address,
  type BlockHeader,
  type Message,
  messageCid,
  type SignedMessage,
  setDefaultNetwork,
  signedMessageCid,
  TipSet,
} from '../../src/types/index.js';
import {
  accountOf,
  devnetTemplate,
  FIL,
  genesisMiner,
  keys,
  MINER,
  PARAMS,
  type SecpKey,
  secpKey,
  signSecp,
} from '../vm/harness.js';

export { FIL, keys, MINER, PARAMS, type SecpKey, secpKey, signSecp };

export interface TestChain {
  readonly directory: string;
  readonly db: LedgerDatabase;
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  /** SENDER_COUNT senders with 1000 FIL each (plus alice, bob from the VM harness). */
  readonly senders: readonly SecpKey[];
  /** A sender with almost nothing: 0.000001 FIL. */
  readonly poor: SecpKey;
  /** Reopens the database (after `close`) as a node restart would. */
  reopen(): TestChain;
  /** Appends a tipset of one block carrying these messages on `parent` (the head by default). */
  mine(secpMessages?: readonly SignedMessage[], options?: { parent?: TipSet; ticket?: string }): Promise<TipSet>;
  openPool(options?: Partial<MessagePoolOptions>): Promise<MessagePool>;
  close(): void;
  remove(): void;
}

export const SENDER_COUNT = 100;

function chainIn(directory: string, create: boolean): TestChain {
  setDefaultNetwork('t');
  const db = LedgerDatabase.open(join(directory, 'chain.db'));
  const senders = Array.from({ length: SENDER_COUNT }, (_, i) => secpKey(`mpool-sender-${i}`));
  const poor = secpKey('mpool-poor');
  let chain: ChainStore;
  if (create) {
    const genesis = buildGenesis(
      db.blockstore,
      devnetTemplate({
        accounts: [
          accountOf(keys.alice.address, 1000n * FIL),
          accountOf(keys.bob.address, 10n * FIL),
          accountOf(keys.worker.address, 1000n * FIL),
          ...senders.map((key) => accountOf(key.address, 1000n * FIL)),
          accountOf(poor.address, 10n ** 12n),
        ],
        miners: [genesisMiner(0, keys.worker.address, keys.worker.address, 2)],
      }),
      PARAMS,
    );
    chain = ChainStore.initialize({ db, params: PARAMS }, genesis.cid);
  } else {
    chain = ChainStore.open({ db, params: PARAMS });
  }
  const states = new TipSetStates(chain, db);
  let tickets = 0;
  const test: TestChain = {
    directory,
    db,
    chain,
    states,
    senders,
    poor,
    reopen: () => chainIn(directory, false),
    async mine(secpMessages = [], options = {}) {
      const parent = options.parent ?? chain.head();
      const state = await states.stateOf(parent);
      const ticket = blake2b256(new TextEncoder().encode(options.ticket ?? `ticket-${parent.height}-${tickets++}`));
      const header: BlockHeader = {
        miner: MINER,
        ticket: { vrfProof: ticket },
        electionProof: { winCount: 1n, vrfProof: ticket },
        beaconEntries: [],
        winPoStProof: [],
        parents: parent.key.cids,
        parentWeight: chain.weightOf(parent),
        height: parent.height + 1n,
        parentStateRoot: state.stateRoot,
        parentMessageReceipts: state.receiptsRoot,
        messages: txMetaCidOf(
          [],
          secpMessages.map((signed) => signedMessageCid(signed)),
        ),
        blsAggregate: null,
        timestamp: parent.timestamp + PARAMS.blockDelaySecs,
        blockSig: null,
        forkSignaling: 0n,
        parentBaseFee: childBaseFee(chain, parent),
      };
      chain.putBlock({ header, blsMessages: [], secpkMessages: secpMessages });
      const tipSet = TipSet.fromHeaders([header]);
      chain.addTipSet(tipSet);
      await chain.settled();
      return tipSet;
    },
    openPool: (options = {}) =>
      Pool.open({
        chain: mpoolChainOf(chain, states),
        params: PARAMS,
        store: db.mpool,
        transaction: (fn) => db.transaction(fn),
        republishTimer: false,
        random: seededRandom(1),
        ...options,
      }),
    close: () => db.close(),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
  return test;
}

export function createTestChain(): TestChain {
  return chainIn(mkdtempSync(join(tmpdir(), 'ledger-mpool-')), true);
}

/** A deterministic uniform source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A plain transfer of 1 attoFIL to bob with ample gas; fields override. */
export function transfer(key: SecpKey, nonce: bigint, fields: Partial<Message> = {}): SignedMessage {
  return signSecp(key, {
    from: key.address,
    to: keys.bob.address,
    nonce,
    value: 1n,
    gasLimit: 3_000_000n,
    gasFeeCap: 1_000_000_000n,
    gasPremium: 100_000n,
    method: 0n,
    params: new Uint8Array(0),
    ...fields,
  });
}

export function cidOf(signed: SignedMessage): string {
  return signedMessageCid(signed).toString();
}

export function unsignedCid(message: Message): string {
  return messageCid(message).toString();
}

export type { Address };
