/**
 * A real chain for the message lifecycle tests: a SQLite (in-memory) database, the real genesis
 * builder, ChainStore and TipSetStates, and tipsets of hand-made blocks whose ParentStateRoot,
 * receipts and base fee come from actually executing their parents. Consensus checks (tickets,
 * election, signatures of blocks) are not what these tests are about, so blocks are not signed.
 */
import { buildGenesis, type GenesisTemplate } from '../../src/chain/genesis/index.js';
import { ChainStore, childBaseFee, TipSetStates, txMetaCidOf } from '../../src/chain/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import {
  type BlockHeader,
  type Message,
  messageCid,
  type SignedMessage,
  signedMessageCid,
  TipSet,
} from '../../src/types/index.js';
import { GENESIS_TIMESTAMP, MINER, PARAMS } from '../vm/harness.js';

export interface TestBlock {
  readonly secp?: readonly SignedMessage[];
  readonly bls?: readonly Message[];
}

export class MessageTestChain {
  readonly db: LedgerDatabase;
  readonly chain: ChainStore;
  readonly states: TipSetStates;

  constructor(template: GenesisTemplate) {
    this.db = LedgerDatabase.open(':memory:');
    const genesis = buildGenesis(this.db.blockstore, template, PARAMS);
    this.chain = ChainStore.initialize({ db: this.db, params: PARAMS }, genesis.cid);
    this.states = new TipSetStates(this.chain, this.db);
  }

  /**
   * Adds a tipset on `parent` (default: the head) at `height` (default: the next epoch) with one
   * block per entry, and waits until head-change subscribers have seen it. `salt` makes a fork's
   * blocks differ from the canonical ones at the same height.
   */
  async mine(blocks: readonly TestBlock[] = [{}], options: { parent?: TipSet; height?: bigint; salt?: string } = {}) {
    const parent = options.parent ?? this.chain.head();
    const height = options.height ?? parent.height + 1n;
    const state = await this.states.stateOf(parent);
    const headers: BlockHeader[] = blocks.map((block, i) => {
      const bls = block.bls ?? [];
      const secp = block.secp ?? [];
      const header: BlockHeader = {
        miner: MINER,
        ticket: { vrfProof: blake2b256(new TextEncoder().encode(`ticket ${height} ${i} ${options.salt ?? ''}`)) },
        electionProof: { winCount: 1n, vrfProof: blake2b256(new TextEncoder().encode(`election ${height} ${i}`)) },
        beaconEntries: [],
        winPoStProof: [],
        parents: parent.key.cids,
        parentWeight: this.chain.weightOf(parent),
        height,
        parentStateRoot: state.stateRoot,
        parentMessageReceipts: state.receiptsRoot,
        messages: txMetaCidOf(bls.map(messageCid), secp.map(signedMessageCid)),
        blsAggregate: null,
        timestamp: GENESIS_TIMESTAMP + height * PARAMS.blockDelaySecs,
        blockSig: null,
        forkSignaling: 0n,
        parentBaseFee: childBaseFee(this.chain, parent),
      };
      this.chain.putBlock({ header, blsMessages: bls, secpkMessages: secp });
      return header;
    });
    const tipSet = TipSet.fromHeaders(headers);
    this.chain.addTipSet(tipSet);
    await this.chain.settled();
    return tipSet;
  }

  close(): void {
    this.db.close();
  }
}
