import { MemoryBlockstore, putCbor } from '../../src/ipld/index.js';
import { BufferedBlockstore } from '../../src/state/index.js';
import { cidOfCbor, encodeCbor } from '../../src/types/index.js';

describe('BufferedBlockstore', () => {
  test('writes nothing until flushed, then only the buffered blocks reachable from the roots, in one putMany', () => {
    const backing = new MemoryBlockstore();
    const stored = putCbor(backing, 'already stored');
    let putManyCalls = 0;
    const counting = Object.assign(Object.create(backing) as MemoryBlockstore, {
      putMany(blocks: Parameters<MemoryBlockstore['putMany']>[0]) {
        putManyCalls++;
        backing.putMany(blocks);
      },
    });
    const buffer = new BufferedBlockstore(counting);
    const leaf = putCbor(buffer, 'leaf');
    const middle = putCbor(buffer, [leaf, stored]);
    const root = putCbor(buffer, { child: middle });
    const garbage = putCbor(buffer, 'superseded');
    expect(backing.has(leaf)).toBe(false);
    expect(buffer.get(leaf)).toEqual(encodeCbor('leaf'));
    expect(buffer.flush([root])).toBe(3);
    expect(putManyCalls).toBe(1);
    expect([root, middle, leaf].every((cid) => backing.has(cid))).toBe(true);
    expect(backing.has(garbage)).toBe(false);
    expect(buffer.size).toBe(0);
  });

  test('discard drops everything', () => {
    const backing = new MemoryBlockstore();
    const buffer = new BufferedBlockstore(backing);
    const cid = putCbor(buffer, 'x');
    buffer.discard();
    expect(buffer.has(cid)).toBe(false);
    expect(buffer.flush([cid])).toBe(0);
    expect(backing.size).toBe(0);
    expect(cidOfCbor(encodeCbor('x')).equals(cid)).toBe(true);
  });
});
