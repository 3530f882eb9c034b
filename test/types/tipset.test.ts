import { blake2b256 } from '../../src/crypto/index.js';
import {
  type BlockHeader,
  blockCid,
  CborDecodeError,
  decodeTipSet,
  decodeTipSetKey,
  encodeCbor,
  encodeTipSet,
  InvalidCidError,
  TipSet,
  TipSetError,
  TipSetKey,
  tipSetFromLotusJson,
  tipSetKeyFromLotusJson,
  tipSetKeyToLotusJson,
  tipSetToCborNode,
  tipSetToLotusJson,
} from '../../src/types/index.js';
import { compareBytes, toHex } from '../../src/utils/bytes.js';
import { cidOf, sampleHeader } from './fixtures.js';

/** Blocks of one epoch: same parent fields, different miners and tickets. */
const blocks: BlockHeader[] = [1, 2, 3, 4].map((i) =>
  sampleHeader({ ticket: { vrfProof: new Uint8Array(96).fill(i * 17) }, messages: cidOf(`messages-${i}`) }),
);

const ticketOrder = (a: BlockHeader, b: BlockHeader) =>
  compareBytes(blake2b256(a.ticket?.vrfProof as Uint8Array), blake2b256(b.ticket?.vrfProof as Uint8Array));

describe('TipSet.fromHeaders', () => {
  it('sorts by blake2b-256 of the ticket, whatever the input order', () => {
    const expected = [...blocks].sort(ticketOrder).map((b) => blockCid(b).toString());
    for (const input of [
      blocks,
      [...blocks].reverse(),
      [blocks[2], blocks[0], blocks[3], blocks[1]] as BlockHeader[],
    ]) {
      expect(TipSet.fromHeaders(input).cids.map(String)).toEqual(expected);
    }
  });

  it('breaks ticket ties by block CID bytes', () => {
    const ticket = { vrfProof: new Uint8Array(96).fill(9) };
    const tied = [0, 1, 2].map((i) => sampleHeader({ ticket, messages: cidOf(`tie-${i}`) }));
    const byCid = [...tied].sort((a, b) => compareBytes(blockCid(a).bytes, blockCid(b).bytes));
    expect(TipSet.fromHeaders(tied).cids).toEqual(byCid.map(blockCid));
    expect(TipSet.fromHeaders([...tied].reverse()).cids).toEqual(byCid.map(blockCid));
  });

  it('exposes the shared fields, the key and the minimum ticket', () => {
    const tipSet = TipSet.fromHeaders(blocks);
    const first = [...blocks].sort(ticketOrder)[0] as BlockHeader;
    expect(tipSet.height).toBe(10n);
    expect(tipSet.parents.cids).toEqual(first.parents);
    expect(tipSet.parentStateRoot.equals(first.parentStateRoot)).toBe(true);
    expect(tipSet.parentMessageReceipts.equals(first.parentMessageReceipts)).toBe(true);
    expect(tipSet.parentWeight).toBe(1000n);
    expect(tipSet.parentBaseFee).toBe(100n);
    expect(tipSet.timestamp).toBe(1598306700n);
    expect(tipSet.minTicket).toBe(first.ticket);
    expect(tipSet.minTicketBlock).toBe(first);
    expect(toHex(tipSet.key.bytes)).toBe(tipSet.cids.map((c) => toHex(c.bytes)).join(''));
    expect(tipSet.contains(blockCid(blocks[1] as BlockHeader))).toBe(true);
    expect(tipSet.contains(cidOf('elsewhere'))).toBe(false);
  });

  it('knows its children', () => {
    const parent = TipSet.fromHeaders(blocks);
    const child = TipSet.fromHeaders([sampleHeader({ parents: parent.cids, height: 12n })]);
    expect(child.isChildOf(parent)).toBe(true);
    expect(parent.isChildOf(child)).toBe(false);
    const sameHeight = TipSet.fromHeaders([sampleHeader({ parents: parent.cids, height: 10n })]);
    expect(sameHeight.isChildOf(parent)).toBe(false);
    const reordered = TipSet.fromHeaders([sampleHeader({ parents: [...parent.cids].reverse(), height: 12n })]);
    expect(reordered.isChildOf(parent)).toBe(false);
  });

  it.each([
    ['no blocks', [], 'a tipset needs at least one block'],
    ['a block without a ticket', [sampleHeader({ ticket: null })], /block bafy.* has no ticket/],
    ['the same block twice', [blocks[0], blocks[0]], /block bafy.* appears twice/],
    ['different heights', [blocks[0], { ...blocks[1], height: 11n }], /disagree on Height$/],
    ['different parents', [blocks[0], { ...blocks[1], parents: [cidOf('x')] }], /disagree on Parents$/],
    ['different parent weights', [blocks[0], { ...blocks[1], parentWeight: 1n }], /disagree on ParentWeight$/],
    ['different state roots', [blocks[0], { ...blocks[1], parentStateRoot: cidOf('x') }], /on ParentStateRoot$/],
    [
      'different receipts',
      [blocks[0], { ...blocks[1], parentMessageReceipts: cidOf('x') }],
      /on ParentMessageReceipts$/,
    ],
    ['different base fees', [blocks[0], { ...blocks[1], parentBaseFee: 1n }], /disagree on ParentBaseFee$/],
    ['different timestamps', [blocks[0], { ...blocks[1], timestamp: 1n }], /disagree on Timestamp$/],
    ['different beacons', [blocks[0], { ...blocks[1], beaconEntries: [] }], /disagree on BeaconEntries$/],
  ])('rejects %s', (_what, headers, message) => {
    expect(() => TipSet.fromHeaders(headers as BlockHeader[])).toThrow(TipSetError);
    expect(() => TipSet.fromHeaders(headers as BlockHeader[])).toThrow(message);
  });
});

describe('TipSet codecs', () => {
  const tipSet = TipSet.fromHeaders(blocks);

  it('writes Lotus JSON {Cids, Blocks, Height}', () => {
    const json = tipSetToLotusJson(tipSet);
    expect(Object.keys(json)).toEqual(['Cids', 'Blocks', 'Height']);
    expect(json.Cids).toEqual(tipSetKeyToLotusJson(tipSet.key));
    expect(json.Height).toBe(10);
    expect(tipSetFromLotusJson(json).equals(tipSet)).toBe(true);
  });

  it('rebuilds from Blocks alone, but refuses Cids or Height that contradict them', () => {
    const json = tipSetToLotusJson(tipSet);
    expect(tipSetFromLotusJson({ Blocks: [...json.Blocks].reverse() }).equals(tipSet)).toBe(true);
    expect(() => tipSetFromLotusJson({ ...json, Cids: [...json.Cids].reverse() })).toThrow(
      /^TipSet: Cids do not match the blocks/,
    );
    expect(() => tipSetFromLotusJson({ ...json, Height: 11 })).toThrow(
      "TipSet: Height does not match the blocks' height",
    );
    expect(() => tipSetFromLotusJson({ ...json, Blocks: [] })).toThrow(
      expect.objectContaining({ code: 'ERR_JSON_DECODE', message: 'TipSet: a tipset needs at least one block' }),
    );
  });

  it('encodes CBOR as [Cids, Blocks, Height] and checks it on decode', () => {
    expect(decodeTipSet(encodeTipSet(tipSet)).equals(tipSet)).toBe(true);
    const node = tipSetToCborNode(tipSet);
    node[2] = 11;
    expect(() => decodeTipSet(encodeCbor(node))).toThrow(CborDecodeError);
  });
});

describe('TipSetKey', () => {
  const key = TipSetKey.fromCids([cidOf('a'), cidOf('b')]);

  it('round-trips through bytes, CBOR and JSON', () => {
    expect(TipSetKey.fromBytes(key.bytes).equals(key)).toBe(true);
    expect(tipSetKeyFromLotusJson(tipSetKeyToLotusJson(key)).equals(key)).toBe(true);
    expect(String(key)).toBe(`{${cidOf('a')},${cidOf('b')}}`);
  });

  it('reads JSON null and [] as the empty key', () => {
    expect(tipSetKeyFromLotusJson(null).isEmpty).toBe(true);
    expect(tipSetKeyFromLotusJson([]).equals(TipSetKey.EMPTY)).toBe(true);
    expect(tipSetKeyToLotusJson(TipSetKey.EMPTY)).toEqual([]);
  });

  it('is order-sensitive', () => {
    expect(TipSetKey.fromCids([cidOf('b'), cidOf('a')]).equals(key)).toBe(false);
  });

  it('rejects bytes that are not whole CIDs', () => {
    expect(() => TipSetKey.fromBytes(key.bytes.subarray(0, 50))).toThrow(InvalidCidError);
    expect(() => TipSetKey.fromBytes(key.bytes.subarray(0, 50))).toThrow(/bad CID at byte 38/);
    expect(() => decodeTipSetKey(encodeCbor(key.bytes.subarray(0, 50)))).toThrow(/^TipSetKey: invalid tipset key/);
    expect(() => decodeTipSetKey(encodeCbor([cidOf('a')]))).toThrow('TipSetKey: expected bytes, got an array of 1');
  });
});
