import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainError, ChainErrorCode, ChainStore, tipSetWeight } from '../../src/chain/index.js';
import { DatabaseError, LedgerDatabase } from '../../src/db/index.js';
import { StateTree } from '../../src/state/index.js';
import { type BlockHeader, blockCid, signedMessageCid, TipSet } from '../../src/types/index.js';
import { powerState } from '../../src/vm/index.js';
import { MINER, PARAMS } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { labelsByTicket, TestChain, ticketProof } from '../helpers/test-chain.js';

const keysOf = (tipSets: readonly TipSet[]) => tipSets.map((t) => t.key.toString());

describe('weight (Lotus filcns weight.go)', () => {
  test('W = ParentWeight + log2P·256 + log2P·256·ΣWinCount / (E·2), only the last term divided', async () => {
    const t = TestChain.create();
    const genesis = t.chain.genesis;
    const power = powerState(StateTree.load(t.chain.blockstore, genesis.parentStateRoot)).totalQualityAdjPower;
    const log2P = BigInt(Math.floor(Math.log2(Number(power))));
    const one = await t.tipSet(genesis, [{ ticket: 'w1' }]);
    const three = await t.tipSet(genesis, [
      { ticket: 'w2', winCount: 1n },
      { ticket: 'w3', winCount: 2n },
    ]);
    // A child's ParentWeight is its parent's weight; genesis weighs log2P·256 itself (no wins).
    const base = t.chain.weightOf(genesis);
    expect(base).toBe(genesis.parentWeight + log2P * 256n);
    expect(one.parentWeight).toBe(base);
    expect(tipSetWeight(t.chain.blockstore, one, PARAMS)).toBe(base + log2P * 256n + (log2P * 256n * 1n) / 10n);
    expect(tipSetWeight(t.chain.blockstore, three, PARAMS)).toBe(base + log2P * 256n + (log2P * 256n * 3n) / 10n);
    // Lotus's weight (filecoin-project/lotus `chain/consensus/filcns/weight.go`) for 2 KiB
    // sectors, with this genesis's power: 2 pre-sealed committed-capacity sectors.
    expect(power).toBe(4096n);
    expect(tipSetWeight(t.chain.blockstore, one, PARAMS) - base).toBe(12n * 256n + 307n);
    t.db.close();
  });

  test('a block records its parent weight, and weightOf reads what addTipSet recorded', async () => {
    const t = TestChain.create();
    const { tipSet: a1 } = await t.add(t.chain.genesis, [{ ticket: 'a1' }]);
    const { tipSet: a2 } = await t.add(a1, [{ ticket: 'a2' }]);
    expect(a2.parentWeight).toBe(t.chain.weightOf(a1));
    expect(t.chain.weightOf(a2)).toBe(tipSetWeight(t.chain.blockstore, a2, PARAMS));
    expect(t.chain.headWeight()).toBe(t.chain.weightOf(a2));
    t.db.close();
  });
});

describe('fork choice and head changes', () => {
  test('the head moves to a heavier fork; subscribers see the reverted and applied tipsets in order', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const a1 = await t.add(g, [{ ticket: 'a1' }]);
    const a2 = await t.add(a1.tipSet, [{ ticket: 'a2' }]);
    expect([a1.head, a2.head]).toEqual([true, true]);
    expect(t.changes.map((c) => [keysOf(c.revert), keysOf(c.apply)])).toEqual([
      [[], keysOf([a1.tipSet])],
      [[], keysOf([a2.tipSet])],
    ]);
    // A fork of two blocks per tipset weighs more at the same height.
    const b1 = await t.add(g, [{ ticket: 'b1' }]);
    expect(b1.head).toBe(false);
    const b2 = await t.add(b1.tipSet, [{ ticket: 'b2x' }, { ticket: 'b2y' }]);
    expect(b2.head).toBe(true);
    expect(t.chain.head().equals(b2.tipSet)).toBe(true);
    const last = t.changes.at(-1)!;
    expect(keysOf(last.revert)).toEqual(keysOf([a2.tipSet, a1.tipSet]));
    expect(keysOf(last.apply)).toEqual(keysOf([b1.tipSet, b2.tipSet]));
    // The canonical index follows the new chain.
    expect(t.chain.getTipSetByHeight(1n, t.chain.head(), true).equals(b1.tipSet)).toBe(true);
    expect(keysOf(t.chain.tipSetsAt(1n)).sort()).toEqual(keysOf([a1.tipSet, b1.tipSet]).sort());
    // A lighter tipset does not move the head and notifies nobody.
    const count = t.changes.length;
    expect((await t.add(g, [{ ticket: 'c1' }])).head).toBe(false);
    expect(t.changes.length).toBe(count);
    // Extending the old chain past the fork's weight moves the head back.
    const a3 = await t.add(a2.tipSet, [{ ticket: 'a3' }]);
    expect(a3.head).toBe(true);
    expect(keysOf(t.changes.at(-1)!.revert)).toEqual(keysOf([b2.tipSet, b1.tipSet]));
    expect(keysOf(t.changes.at(-1)!.apply)).toEqual(keysOf([a1.tipSet, a2.tipSet, a3.tipSet]));
    t.db.close();
  });

  test('at equal weight the smaller ticket wins; an equal or larger one keeps the head', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const [small, large] = labelsByTicket(['x', 'y']) as [string, string];
    const heavy = await t.add(g, [{ ticket: large }]);
    expect(heavy.head).toBe(true);
    const tie = await t.add(g, [{ ticket: small }]);
    expect(tie.head).toBe(true);
    expect(keysOf(t.changes.at(-1)!.revert)).toEqual(keysOf([heavy.tipSet]));
    expect(keysOf(t.changes.at(-1)!.apply)).toEqual(keysOf([tie.tipSet]));
    expect(t.chain.addTipSet(heavy.tipSet)).toBe(false);
    expect(t.chain.head().equals(tie.tipSet)).toBe(true);
    t.db.close();
  });
});

describe('message inclusions follow the canonical chain', () => {
  test('a reorg drops the inclusions of reverted tipsets and records those of applied ones', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const transfer = signSecp(keys.alice, message({ from: keys.alice.address, to: keys.bob.address, value: 1n }));
    const cid = signedMessageCid(transfer);
    const a1 = (await t.add(g, [{ ticket: 'a1', secp: [transfer] }])).tipSet;
    expect(t.chain.findMessageInclusion(cid)?.tipSet.equals(a1.key)).toBe(true);
    expect(t.chain.blockMessages(a1.blocks[0]!).secpMessages).toEqual([transfer]);
    expect(t.chain.tipSetMessages(a1).map((m) => m.cid.toString())).toEqual([cid.toString()]);
    // A heavier fork without the message.
    const b1 = (await t.add(g, [{ ticket: 'b1x' }, { ticket: 'b1y' }])).tipSet;
    expect(t.chain.head().equals(b1)).toBe(true);
    expect(t.chain.findMessageInclusion(cid)).toBeUndefined();
    // The message included again on the new chain.
    const b2 = (await t.add(b1, [{ ticket: 'b2', secp: [transfer] }])).tipSet;
    const inclusion = t.chain.findMessageInclusion(cid);
    expect(inclusion?.tipSet.equals(b2.key)).toBe(true);
    expect(inclusion?.height).toBe(2n);
    // Its receipt is in the receipts of the tipset after execution.
    const state = await t.states.stateOf(b2);
    expect(t.chain.readReceipts(state.receiptsRoot)).toHaveLength(1);
    t.db.close();
  });
});

describe('null rounds', () => {
  test('getTipSetByHeight at a null round: prev picks the tipset before, otherwise the one after', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const t1 = (await t.add(g, [{ ticket: 't1' }])).tipSet;
    const t4 = (await t.add(t1, [{ ticket: 't4' }], 4n)).tipSet;
    const t5 = (await t.add(t4, [{ ticket: 't5' }])).tipSet;
    const head = t.chain.head();
    expect(head.equals(t5)).toBe(true);
    const at = (h: bigint, prev: boolean, from = head) => t.chain.getTipSetByHeight(h, from, prev).key.toString();
    expect(at(2n, true)).toBe(t1.key.toString());
    expect(at(3n, false)).toBe(t4.key.toString());
    expect(at(4n, true)).toBe(t4.key.toString());
    expect(at(0n, false)).toBe(g.key.toString());
    expect(at(5n, true)).toBe(t5.key.toString());
    // Timestamps stay on the epoch grid across the gap.
    expect(t4.timestamp - t1.timestamp).toBe(3n * PARAMS.blockDelaySecs);
    // The applied list of a head change spans the gap.
    expect(keysOf(t.changes.flatMap((c) => c.apply))).toEqual(keysOf([t1, t4, t5]));

    // Off the canonical chain the store walks parents instead of the index.
    const f3 = (await t.add(t1, [{ ticket: 'f3' }], 3n)).tipSet;
    expect(t.chain.head().equals(t5)).toBe(true);
    expect(at(2n, true, f3)).toBe(t1.key.toString());
    expect(at(2n, false, f3)).toBe(f3.key.toString());

    expect(() => t.chain.getTipSetByHeight(6n, head, true)).toThrow(
      expect.objectContaining({ code: ChainErrorCode.InvalidHeight }),
    );
    expect(() => t.chain.getTipSetByHeight(-1n, head, true)).toThrow(ChainError);
    t.db.close();
  });
});

describe('a mined block joins the chain in one transaction (addBlocks)', () => {
  test('a failed write (SQLITE_FULL) or a refusal leaves nothing; a retry lands block, tipset, head and record', async () => {
    const t = TestChain.create();
    const genesis = t.chain.genesis;
    const index = t.db.chainIndex;
    // A block on genesis that is not in the blockstore yet: a stored one with another ticket.
    const model = (await t.tipSet(genesis, [{ ticket: 'model' }])).blocks[0]!;
    const header: BlockHeader = { ...model, ticket: { vrfProof: ticketProof('mined1') } };
    const block = { header, blsMessages: [], secpkMessages: [] };
    const cid = blockCid(header);
    const tipSet = TipSet.fromHeaders([header]);
    // What the slash filter writes alongside the block.
    const record = () => index.putMinedBlock(MINER.bytes, { height: 1n, parents: genesis.key, block: cid });
    const nothingWritten = async () => {
      expect(t.chain.hasBlock(cid)).toBe(false);
      expect(index.getTipSet(tipSet.key)).toBeUndefined();
      expect(index.minedBlockAt(MINER.bytes, 1n)).toBeUndefined();
      expect(t.chain.head().equals(genesis)).toBe(true);
      expect(ChainStore.open({ db: t.db, params: PARAMS }).head().equals(genesis)).toBe(true);
      await t.chain.settled();
      expect(t.changes).toEqual([]);
    };

    // The disk fills up while the tipset is indexed, after the record and the block were written.
    const putTipSet = index.putTipSet.bind(index);
    index.putTipSet = (tipSetRecord) => {
      index.putTipSet = putTipSet;
      throw new DatabaseError(`indexing tipset ${tipSetRecord.key} failed: database or disk is full (SQLITE_FULL)`, {
        sqliteCode: 'SQLITE_FULL',
      });
    };
    expect(() => t.chain.addBlocks([block], record)).toThrow(/SQLITE_FULL/);
    await nothingWritten();
    // The slash filter refusing the block (by throwing) writes nothing either.
    expect(() =>
      t.chain.addBlocks([block], () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    await nothingWritten();

    expect(t.chain.addBlocks([block], record).becameHead).toBe(true);
    expect(t.chain.hasBlock(cid)).toBe(true);
    expect(index.minedBlockAt(MINER.bytes, 1n)?.block.equals(cid)).toBe(true);
    expect(t.chain.head().equals(tipSet)).toBe(true);
    expect(ChainStore.open({ db: t.db, params: PARAMS }).head().equals(tipSet)).toBe(true);
    await t.chain.settled();
    expect(t.changes.map((c) => [keysOf(c.revert), keysOf(c.apply)])).toEqual([[[], keysOf([tipSet])]]);
    t.db.close();
  });
});

describe('persistence', () => {
  test('a reopened database resumes at the persisted head, with its canonical chain', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledger-chain-'));
    try {
      const path = join(dir, 'chain.db');
      const t = TestChain.create({ db: LedgerDatabase.open(path) });
      const { db } = t;
      const a1 = (await t.add(t.chain.genesis, [{ ticket: 'a1' }])).tipSet;
      const a3 = (await t.add(a1, [{ ticket: 'a3' }], 3n)).tipSet;
      const weight = t.chain.headWeight();
      db.close();

      const reopened = LedgerDatabase.open(path);
      expect(ChainStore.hasChain(reopened)).toBe(true);
      const chain = ChainStore.open({ db: reopened, params: PARAMS });
      expect(chain.head().equals(a3)).toBe(true);
      expect(chain.headWeight()).toBe(weight);
      expect(chain.genesis.equals(t.chain.genesis)).toBe(true);
      expect(chain.getTipSetByHeight(2n, chain.head(), true).equals(a1)).toBe(true);
      // initialize() with the same genesis opens the existing chain rather than resetting it.
      const again = TestChain.create({ db: reopened }).chain;
      expect(again.head().equals(a3)).toBe(true);
      reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('an empty database holds no chain', () => {
    const db = LedgerDatabase.open(':memory:');
    expect(ChainStore.hasChain(db)).toBe(false);
    expect(() => ChainStore.open({ db, params: PARAMS })).toThrow(
      expect.objectContaining({ code: ChainErrorCode.NoChain }),
    );
    db.close();
  });
});

describe('TipSetStates', () => {
  test('genesis is not executed; a tipset runs once, concurrent requests share the run', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const genesisState = await t.states.stateOf(g);
    expect(genesisState.stateRoot.equals(g.parentStateRoot)).toBe(true);
    const a1 = (await t.add(g, [{ ticket: 'a1' }])).tipSet;
    const [first, second] = await Promise.all([t.states.stateOf(a1), t.states.stateOf(a1)]);
    expect(first.stateRoot.equals(second.stateRoot)).toBe(true);
    // Execution changes the state (block reward, cron) and is recorded in the index.
    expect(first.stateRoot.equals(g.parentStateRoot)).toBe(false);
    expect(t.db.chainIndex.getTipSetState(a1.key)?.stateRoot.equals(first.stateRoot)).toBe(true);
    // A child built on a1 carries that state as its parent state.
    const a2 = (await t.add(a1, [{ ticket: 'a2' }])).tipSet;
    expect(a2.parentStateRoot.equals(first.stateRoot)).toBe(true);
    t.db.close();
  });
});
