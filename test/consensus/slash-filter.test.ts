import { BlockErrorCode, BlockValidationError, SlashFilter } from '../../src/consensus/index.js';
import { type BlockHeader, blockCid, TipSetKey } from '../../src/types/index.js';
import { TestChain, ticketProof } from '../helpers/test-chain.js';

function refusal(filter: SlashFilter, header: BlockHeader, parentEpoch: bigint): BlockValidationError {
  try {
    filter.minedBlock(header, parentEpoch);
  } catch (error) {
    expect(error).toBeInstanceOf(BlockValidationError);
    expect((error as BlockValidationError).code).toBe(BlockErrorCode.DoubleSign);
    return error as BlockValidationError;
  }
  throw new Error('the slash filter accepted the block');
}

describe('SlashFilter', () => {
  test('refuses double-fork and time-offset blocks, also after a restart; accepts the same block again', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const filter = new SlashFilter(t.db.chainIndex);
    const a1 = (await t.add(g, [{ ticket: 'a1' }])).tipSet.blocks[0]!;
    filter.minedBlock(a1, 0n);
    filter.minedBlock(a1, 0n);

    const b1 = (await t.tipSet(g, [{ ticket: 'b1' }])).blocks[0]!;
    expect(refusal(filter, b1, 0n).message).toMatch(/double-fork mining/);
    // Same parents, a later height: mining the same base twice.
    const c2 = (await t.tipSet(g, [{ ticket: 'c2' }], 2n)).blocks[0]!;
    expect(refusal(filter, c2, 0n).message).toMatch(/time-offset mining/);
    // A filter reopened on the same database remembers.
    expect(refusal(new SlashFilter(t.db.chainIndex), b1, 0n).message).toMatch(/double-fork/);
    t.db.close();
  });

  test('parent grinding: a block after a null round that leaves out our block of that round', async () => {
    const t = TestChain.create();
    const filter = new SlashFilter(t.db.chainIndex);
    const a1 = (await t.add(t.chain.genesis, [{ ticket: 'a1' }])).tipSet;
    const left = (await t.add(a1, [{ ticket: 'left2' }])).tipSet;
    const right = (await t.add(a1, [{ ticket: 'right2' }])).tipSet;
    const own3 = (await t.add(left, [{ ticket: 'own3' }])).tipSet.blocks[0]!;
    filter.minedBlock(own3, 2n);
    // Height 4 on the sibling at height 2: round 3 (where own3 is) becomes a null round.
    const grinding = (await t.tipSet(right, [{ ticket: 'grind4' }], 4n)).blocks[0]!;
    expect(refusal(filter, grinding, 2n).message).toMatch(/parent-grinding: it leaves out/);
    // Building on own3 is fine.
    const next = (await t.tipSet(await t.tipSet(left, [{ ticket: 'own3' }]), [{ ticket: 'own4' }])).blocks[0]!;
    filter.minedBlock(next, 3n);
    t.db.close();
  });

  test('a record of a block that never landed (its tipset not in the chain index) is no fault and is replaced', async () => {
    const t = TestChain.create();
    const g = t.chain.genesis;
    const index = t.db.chainIndex;
    const filter = new SlashFilter(index);
    const a1 = (await t.add(g, [{ ticket: 'a1' }])).tipSet.blocks[0]!;
    const miner = a1.miner.bytes;
    // What older versions left when a chain write after the record failed: a record without the
    // header, or with the header but without its tipset.
    const lost = (height: bigint) => {
      const header: BlockHeader = { ...a1, height, ticket: { vrfProof: ticketProof(`lost${height}`) } };
      const block = blockCid(header);
      expect(t.db.blockstore.has(block)).toBe(false);
      index.putMinedBlock(miner, { height, parents: g.key, block });
    };
    lost(1n);
    const stored2 = (await t.tipSet(g, [{ ticket: 'stored2' }], 2n)).blocks[0]!;
    expect(t.db.blockstore.has(blockCid(stored2))).toBe(true);
    index.putMinedBlock(miner, { height: 2n, parents: g.key, block: blockCid(stored2) });
    // Same height as one lost block (double-fork), same parents as both (time-offset): accepted.
    filter.minedBlock(a1, 0n);
    expect(index.minedBlockAt(miner, 1n)?.block.equals(blockCid(a1))).toBe(true);
    expect(index.minedBlockAt(miner, 2n)).toBeUndefined();
    expect(index.minedBlockOn(miner, g.key)?.block.equals(blockCid(a1))).toBe(true);
    // A record whose block landed still refuses.
    const b1 = (await t.tipSet(g, [{ ticket: 'b1' }])).blocks[0]!;
    expect(refusal(filter, b1, 0n).message).toMatch(/double-fork mining/);

    // Parent grinding: a block after a null round that leaves out a lost block of that round.
    const lost2: BlockHeader = { ...a1, height: 2n, ticket: { vrfProof: ticketProof('lost2') } };
    index.putMinedBlock(miner, { height: 2n, parents: TipSetKey.fromCids([blockCid(a1)]), block: blockCid(lost2) });
    const sibling = await t.tipSet(g, [{ ticket: 'sibling1' }]);
    const c3 = (await t.tipSet(sibling, [{ ticket: 'c3' }], 3n)).blocks[0]!;
    filter.minedBlock(c3, 1n);
    expect(index.minedBlockAt(miner, 2n)).toBeUndefined();
    t.db.close();
  });
});
