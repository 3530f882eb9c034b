import { BlockErrorCode, BlockValidationError, SlashFilter } from '../../src/consensus/index.js';
import type { BlockHeader } from '../../src/types/index.js';
import { TestChain } from '../chain/chain-fixture.js';

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
    const t = TestChain.inMemory();
    const g = t.chain.genesis;
    const filter = new SlashFilter(t.db.chainIndex);
    const a1 = (await t.tipSet(g, [{ ticket: 'a1' }])).blocks[0]!;
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
    const t = TestChain.inMemory();
    const filter = new SlashFilter(t.db.chainIndex);
    const a1 = (await t.add(t.chain.genesis, [{ ticket: 'a1' }])).tipSet;
    const left = (await t.add(a1, [{ ticket: 'left2' }])).tipSet;
    const right = (await t.add(a1, [{ ticket: 'right2' }])).tipSet;
    const own3 = (await t.tipSet(left, [{ ticket: 'own3' }])).blocks[0]!;
    filter.minedBlock(own3, 2n);
    // Height 4 on the sibling at height 2: round 3 (where own3 is) becomes a null round.
    const grinding = (await t.tipSet(right, [{ ticket: 'grind4' }], 4n)).blocks[0]!;
    expect(refusal(filter, grinding, 2n).message).toMatch(/parent-grinding: it leaves out/);
    // Building on own3 is fine.
    const next = (await t.tipSet(await t.tipSet(left, [{ ticket: 'own3' }]), [{ ticket: 'own4' }])).blocks[0]!;
    filter.minedBlock(next, 3n);
    t.db.close();
  });
});
