/**
 * The chain fixture: a SQLite chain store (in memory, or a file in a temporary directory) over a
 * genesis built by the real genesis builder, TipSetStates, and tipsets of hand-made blocks whose
 * ParentStateRoot, receipts and base fee come from really executing their parents. Blocks are not
 * signed and tickets are derived from labels: the chain store does not validate, so tests control
 * tickets, win counts, heights and forks freely. Every head change is recorded in `changes`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGenesis, type GenesisTemplate } from '../../src/chain/genesis/index.js';
import {
  type BeaconSchedule,
  ChainStore,
  childBaseFee,
  type HeadChange,
  TipSetStates,
  txMetaCidOf,
} from '../../src/chain/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import type { NetworkParams } from '../../src/params/index.js';
import {
  type BeaconEntry,
  type BlockHeader,
  type Message,
  messageCid,
  type SignedMessage,
  signedMessageCid,
  TipSet,
} from '../../src/types/index.js';
import { accountOf, FIL, fundedTemplate, MINER, PARAMS } from './genesis.js';
import { type SecpKey, secpKey } from './keys.js';

export interface BlockSpec {
  /** A label the ticket and election proof derive from; by default the block's height, position and salt. */
  readonly ticket?: string;
  readonly winCount?: bigint;
  readonly secp?: readonly SignedMessage[];
  readonly bls?: readonly Message[];
  /** None by default. */
  readonly beaconEntries?: readonly BeaconEntry[];
}

export interface TestChainOptions {
  /** The genesis; fundedTemplate() by default. */
  readonly template?: GenesisTemplate;
  /** More secp256k1 accounts with 1000 FIL each, added to the template: the chain's `senders`. */
  readonly senders?: number;
  /** Keep the database in `chain.db` of a new temporary directory (`remove()` deletes it) instead of memory. */
  readonly onDisk?: boolean;
  /** Build into this open database instead. */
  readonly db?: LedgerDatabase;
  /** The chain store's parameters (default PARAMS); the genesis is built with PARAMS. */
  readonly params?: NetworkParams;
  /** The chain store's beacon rounds by epoch (none by default: beacon randomness then fails). */
  readonly beaconSchedule?: BeaconSchedule;
  /**
   * A beacon round per epoch: the schedule maps epoch N to round N and every block carries entry N
   * unless its spec gives entries (the entries are not drand's: test chains do not validate them).
   * Beacon randomness (PREVRANDAO, seeds) then works.
   */
  readonly beaconEveryEpoch?: boolean;
}

export interface TestChainPlace {
  readonly senders?: readonly SecpKey[];
  readonly directory?: string;
  readonly beaconEveryEpoch?: boolean;
}

/** Round `round` of a test chain's beacon (`beaconEveryEpoch`). */
function testBeaconEntry(round: bigint): BeaconEntry {
  return { round, data: blake2b256(new TextEncoder().encode(`test beacon ${round}`)) };
}

export class TestChain {
  readonly states: TipSetStates;
  readonly changes: HeadChange[] = [];
  /** The funded keys `options.senders` asked for. */
  readonly senders: readonly SecpKey[];
  /** The temporary directory of an on-disk chain. */
  readonly directory: string | undefined;
  readonly #beaconEveryEpoch: boolean;

  constructor(
    readonly db: LedgerDatabase,
    readonly chain: ChainStore,
    place: TestChainPlace = {},
  ) {
    this.senders = place.senders ?? [];
    this.directory = place.directory;
    this.#beaconEveryEpoch = place.beaconEveryEpoch === true;
    this.states = new TipSetStates(chain, db);
    chain.subscribeHeadChanges((change) => {
      this.changes.push(change);
    });
  }

  /** A new chain on the genesis; with `db`, a database that already holds it is opened, not reset. */
  static create(options: TestChainOptions = {}): TestChain {
    const senders = Array.from({ length: options.senders ?? 0 }, (_, i) => secpKey(`sender-${i}`));
    const base = options.template ?? fundedTemplate();
    const template = {
      ...base,
      accounts: [...base.accounts, ...senders.map((k) => accountOf(k.address, 1000n * FIL))],
    };
    const directory = options.onDisk === true ? mkdtempSync(join(tmpdir(), 'ledger-test-chain-')) : undefined;
    const db = options.db ?? LedgerDatabase.open(databaseIn(directory));
    const genesis = buildGenesis(db.blockstore, template, PARAMS);
    const chain = ChainStore.initialize(
      {
        db,
        params: options.params ?? PARAMS,
        beaconSchedule: options.beaconEveryEpoch === true ? (epoch) => epoch : options.beaconSchedule,
      },
      genesis.cid,
    );
    return new TestChain(db, chain, { senders, directory, beaconEveryEpoch: options.beaconEveryEpoch === true });
  }

  /** The SQLite file of an on-disk chain; `:memory:` otherwise. */
  get databasePath(): string {
    return databaseIn(this.directory);
  }

  /** The same on-disk chain opened again (after `close`), as a node restart does. */
  reopen(): TestChain {
    if (this.directory === undefined) throw new Error('reopen: this test chain is in memory, not on disk');
    const db = LedgerDatabase.open(this.databasePath);
    return new TestChain(db, ChainStore.open({ db, params: this.chain.params }), this);
  }

  /** A tipset of one block per spec on `parent` at `height` (default parent + 1), stored but not added. */
  async tipSet(parent: TipSet, specs: readonly BlockSpec[], height = parent.height + 1n, salt = ''): Promise<TipSet> {
    const state = await this.states.stateOf(parent);
    const headers = specs.map((spec, i): BlockHeader => {
      const label = spec.ticket ?? `${height} ${i} ${salt}`;
      const bls = spec.bls ?? [];
      const secp = spec.secp ?? [];
      const header: BlockHeader = {
        miner: MINER,
        ticket: { vrfProof: ticketProof(label) },
        electionProof: { winCount: spec.winCount ?? 1n, vrfProof: blake2b256(new TextEncoder().encode(`e:${label}`)) },
        beaconEntries: spec.beaconEntries ?? (this.#beaconEveryEpoch ? [testBeaconEntry(height)] : []),
        winPoStProof: [],
        parents: parent.cids,
        parentWeight: this.chain.weightOf(parent),
        height,
        parentStateRoot: state.stateRoot,
        parentMessageReceipts: state.receiptsRoot,
        messages: txMetaCidOf(bls.map(messageCid), secp.map(signedMessageCid)),
        blsAggregate: null,
        timestamp: this.chain.genesis.timestamp + height * this.chain.params.blockDelaySecs,
        blockSig: null,
        forkSignaling: 0n,
        parentBaseFee: childBaseFee(this.chain, parent),
      };
      this.chain.putBlock({ header, blsMessages: bls, secpkMessages: secp });
      return header;
    });
    return TipSet.fromHeaders(headers);
  }

  /** Builds and adds a tipset on `parent`; returns it and whether it became the head. */
  async add(parent: TipSet, specs: readonly BlockSpec[], height?: bigint): Promise<{ tipSet: TipSet; head: boolean }> {
    const tipSet = await this.tipSet(parent, specs, height);
    const head = this.chain.addTipSet(tipSet);
    await this.chain.settled();
    return { tipSet, head };
  }

  /**
   * Adds a tipset on `parent` (default: the head) at `height` (default: the next epoch), one block
   * per entry, and waits until head-change subscribers have seen it. `salt` makes a fork's blocks
   * differ from the canonical ones at the same height.
   */
  async mine(
    blocks: readonly BlockSpec[] = [{}],
    options: { parent?: TipSet; height?: bigint; salt?: string } = {},
  ): Promise<TipSet> {
    const tipSet = await this.tipSet(options.parent ?? this.chain.head(), blocks, options.height, options.salt);
    this.chain.addTipSet(tipSet);
    await this.chain.settled();
    return tipSet;
  }

  close(): void {
    this.db.close();
  }

  /** Deletes an on-disk chain's directory (after `close`). */
  remove(): void {
    if (this.directory !== undefined) rmSync(this.directory, { recursive: true, force: true });
  }
}

function databaseIn(directory: string | undefined): string {
  return directory === undefined ? ':memory:' : join(directory, 'chain.db');
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
