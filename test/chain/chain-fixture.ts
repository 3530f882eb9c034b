/**
 * A chain store on SQLite over the real genesis builder, with hand-made (unsigned) blocks: the
 * chain store does not validate, so these tests control tickets, win counts and heights freely.
 * Each block's parent state is the real state after executing its parent (TipSetStates).
 */
import { buildGenesis } from '../../src/chain/genesis/index.js';
import { ChainStore, childBaseFee, type HeadChange, TipSetStates, txMetaCidOf } from '../../src/chain/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { type BlockHeader, type SignedMessage, signedMessageCid, TipSet } from '../../src/types/index.js';
import { accountOf, devnetTemplate, FIL, GENESIS_TIMESTAMP, genesisMiner, keys, MINER, PARAMS } from '../vm/harness.js';

export function openChainDb(path = ':memory:'): LedgerDatabase {
  return LedgerDatabase.open(path);
}

export function initializeChain(db: LedgerDatabase): ChainStore {
  const genesis = buildGenesis(
    db.blockstore,
    devnetTemplate({
      accounts: [accountOf(keys.worker.address, 1000n * FIL), accountOf(keys.alice.address, 1000n * FIL)],
      miners: [genesisMiner(0, keys.worker.address, keys.worker.address, 2)],
    }),
    PARAMS,
  );
  return ChainStore.initialize({ db, params: PARAMS }, genesis.cid);
}

export interface BlockSpec {
  /** Any label: the ticket is derived from it. */
  readonly ticket: string;
  readonly winCount?: bigint;
  readonly secp?: readonly SignedMessage[];
}

export class TestChain {
  readonly states: TipSetStates;
  readonly changes: HeadChange[] = [];

  constructor(
    readonly db: LedgerDatabase,
    readonly chain: ChainStore,
  ) {
    this.states = new TipSetStates(chain, db);
    chain.subscribeHeadChanges((change) => {
      this.changes.push(change);
    });
  }

  static inMemory(): TestChain {
    const db = openChainDb();
    return new TestChain(db, initializeChain(db));
  }

  /** A tipset on `parent` at `height` (default parent + 1), stored but not yet added. */
  async tipSet(parent: TipSet, specs: readonly BlockSpec[], height = parent.height + 1n): Promise<TipSet> {
    const state = await this.states.stateOf(parent);
    const headers = specs.map((spec): BlockHeader => {
      const header: BlockHeader = {
        miner: MINER,
        ticket: { vrfProof: ticketProof(spec.ticket) },
        electionProof: {
          winCount: spec.winCount ?? 1n,
          vrfProof: blake2b256(new TextEncoder().encode(`e:${spec.ticket}`)),
        },
        beaconEntries: [],
        winPoStProof: [],
        parents: parent.cids,
        parentWeight: this.chain.weightOf(parent),
        height,
        parentStateRoot: state.stateRoot,
        parentMessageReceipts: state.receiptsRoot,
        messages: txMetaCidOf([], (spec.secp ?? []).map(signedMessageCid)),
        blsAggregate: null,
        timestamp: GENESIS_TIMESTAMP + height * PARAMS.blockDelaySecs,
        blockSig: null,
        forkSignaling: 0n,
        parentBaseFee: childBaseFee(this.chain, parent),
      };
      this.chain.putBlock({ header, blsMessages: [], secpkMessages: spec.secp ?? [] });
      return header;
    });
    return TipSet.fromHeaders(headers);
  }

  /** Builds and adds a tipset; returns it and whether it became the head. */
  async add(parent: TipSet, specs: readonly BlockSpec[], height?: bigint): Promise<{ tipSet: TipSet; head: boolean }> {
    const tipSet = await this.tipSet(parent, specs, height);
    const head = this.chain.addTipSet(tipSet);
    await this.chain.settled();
    return { tipSet, head };
  }
}

/** A 96-byte ticket VRF stand-in derived from a label. */
export function ticketProof(label: string): Uint8Array {
  const bytes = new Uint8Array(96);
  bytes.set(blake2b256(new TextEncoder().encode(`t:${label}`)));
  return bytes;
}

/** Ticket labels ordered by blake2b-256 of their proofs, the order tie-breaks and tipsets use. */
export function labelsByTicket(labels: readonly string[]): string[] {
  const digest = (label: string) => Buffer.from(blake2b256(ticketProof(label))).toString('hex');
  return [...labels].sort((a, b) => (digest(a) < digest(b) ? -1 : 1));
}
