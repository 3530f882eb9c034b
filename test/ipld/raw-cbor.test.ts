import { checkEncodedValue, RawCborReader, RawCborWriter } from '../../src/ipld/raw-cbor.js';
import { CborDecodeError, encodeCbor } from '../../src/types/cbor.js';
import { parseCid } from '../../src/types/cid.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';

const cid = parseCid('bafy2bzaceamp42wmmgr2g2ymg46euououzfyck7szknvfacqscohrvaikwfay');
const reader = (bytes: Uint8Array) => new RawCborReader(bytes, (reason) => new Error(reason));

describe('raw CBOR (node envelopes with values kept encoded)', () => {
  test('rawItem returns exactly one item for every DAG-CBOR kind', () => {
    const values: unknown[] = [
      0,
      23,
      24,
      -1,
      -(2 ** 40),
      2n ** 64n - 1n,
      1.5,
      true,
      false,
      null,
      '',
      'text ü',
      new Uint8Array(300),
      [],
      [1, [2, [3, { a: cid }]]],
      { a: 1, bb: [null], c: { d: new Uint8Array([1]) } },
      cid,
      new Array(70000).fill(0),
    ];
    for (const value of values) {
      const item = encodeCbor(value);
      const followed = reader(Uint8Array.from([...item, 0x01]));
      expect(toHex(followed.rawItem())).toBe(toHex(item));
      expect(followed.atEnd).toBe(false);
      expect(() => checkEncodedValue(item)).not.toThrow();
    }
  });

  test.each([
    ['indefinite-length array', '9f01ff', /indefinite/],
    ['non-minimal length', '980101', /non-minimal/],
    ['non-minimal integer', '1817', /non-minimal/],
    ['undefined', 'f7', /not DAG-CBOR/],
    ['half float', 'f93c00', /not DAG-CBOR/],
    ['tag other than 42', 'c11a514b67b0', /tag 1 is not allowed/],
    ['truncated byte string', '4401', /unexpected end/],
    ['truncated float', 'fb3ff8', /unexpected end/],
    ['two items', '0101', /trailing bytes/],
    ['nothing', '', /unexpected end/],
  ])('checkEncodedValue refuses %s', (_name, hex, message) => {
    expect(() => checkEncodedValue(fromHex(hex))).toThrow(CborDecodeError);
    expect(() => checkEncodedValue(fromHex(hex))).toThrow(message);
  });

  test('the writer emits canonical heads at every width boundary, as the DAG-CBOR encoder does', () => {
    for (const n of [0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      expect(toHex(new RawCborWriter().uint(n).finish())).toBe(toHex(encodeCbor(n)));
      expect(reader(encodeCbor(n)).uint()).toBe(n);
    }
    const bytes = new Uint8Array(70000).fill(7);
    expect(toHex(new RawCborWriter().byteString(bytes).finish())).toBe(toHex(encodeCbor(bytes)));
    const composite = new RawCborWriter()
      .array(3)
      .link(cid.bytes)
      .map(1)
      .asciiText('1')
      .raw(encodeCbor([1, 'x']))
      .byteString(new Uint8Array([9]))
      .finish();
    expect(toHex(composite)).toBe(toHex(encodeCbor([cid, { '1': [1, 'x'] }, new Uint8Array([9])])));
    const read = reader(composite);
    expect(read.arrayLength()).toBe(3);
    expect(toHex(read.link())).toBe(toHex(cid.bytes));
    expect(read.mapLength()).toBe(1);
    expect(read.text()).toBe('1');
    expect(toHex(read.rawItem())).toBe(toHex(encodeCbor([1, 'x'])));
    expect(read.byteString()).toEqual(new Uint8Array([9]));
    expect(read.atEnd).toBe(true);
  });

  test('node fields beyond 2^53 and links that are not CIDs are refused', () => {
    expect(() => reader(encodeCbor(2n ** 60n)).uint()).toThrow(/beyond 2\^53/);
    expect(() => reader(fromHex('d82a4100')).link()).toThrow(/invalid CID/);
    expect(() => reader(fromHex('d82a4101')).link()).toThrow(/0x00/);
    expect(() => reader(fromHex('c1420000')).link()).toThrow(/tag other than 42/);
    const shortLink = new RawCborWriter().link(cid.bytes.subarray(0, -1)).finish();
    expect(() => reader(shortLink).link()).toThrow(/invalid CID/);
    const longLink = new RawCborWriter().link(Uint8Array.from([...cid.bytes, 0])).finish();
    expect(() => reader(longLink).link()).toThrow(/wrong length/);
  });
});
