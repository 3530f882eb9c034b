import {
  BIG_INT_MAX_SERIALIZED_LENGTH,
  bigIntFromBytes,
  bigIntFromCborNode,
  bigIntFromLotusJson,
  bigIntToBytes,
  FILECOIN_PRECISION,
  formatAttoFil,
  formatFil,
  parseFil,
  TOTAL_FILECOIN,
} from '../../src/types/index.js';
import { fromHex, toHex } from '../../src/utils/bytes.js';

describe('parseFil (Lotus types.ParseFIL)', () => {
  it.each([
    ['1', 10n ** 18n],
    ['1.5', 15n * 10n ** 17n],
    ['1.5 FIL', 15n * 10n ** 17n],
    ['1.5fil', 15n * 10n ** 17n],
    ['1.5 FiL  ', 15n * 10n ** 17n],
    ['0.000000000000000001', 1n],
    ['1.500000000000000000000', 15n * 10n ** 17n],
    ['.5', 5n * 10n ** 17n],
    ['2.', 2n * 10n ** 18n],
    ['-1.5', -15n * 10n ** 17n],
    ['007', 7n * 10n ** 18n],
    ['1 attoFIL', 1n],
    ['1 attofil', 1n],
    ['12afil', 12n],
    ['3.000 aFIL', 3n],
    ['2000000000 FIL', TOTAL_FILECOIN],
  ])('%j → %s', (text, expected) => {
    expect(parseFil(text)).toBe(expected);
  });

  it.each([
    ['', 'failed to parse "" as a decimal number'],
    ['abc', 'unrecognized suffix: "abc" (use FIL, attoFIL or afil)'],
    ['1.5 nFIL', 'unrecognized suffix: " nFIL"'],
    ['1e18', 'unrecognized suffix: "e18"'],
    ['+1', 'unrecognized suffix: "+1"'],
    [' 1.5 FIL', 'unrecognized suffix: " 1.5 FIL"'],
    ['-', 'failed to parse "-" as a decimal number'],
    ['.', 'failed to parse "." as a decimal number'],
    ['1.2.3', 'failed to parse "1.2.3" as a decimal number'],
    ['1-2', 'failed to parse "1-2" as a decimal number'],
    ['0.0000000000000000001', 'invalid FIL value: "0.0000000000000000001" is not a whole number of attoFIL'],
    ['1.5 attoFIL', 'invalid attoFIL value: "1.5"'],
    [`1${'0'.repeat(50)}`, 'string length too large: 51'],
  ])('%j fails: %s', (text, message) => {
    expect(() => parseFil(text)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_TOKEN_AMOUNT' }));
    expect(() => parseFil(text)).toThrow(message);
  });
});

describe('formatFil (Lotus FIL.String) and formatAttoFil', () => {
  it.each([
    [0n, '0 FIL'],
    [FILECOIN_PRECISION, '1 FIL'],
    [15n * 10n ** 17n, '1.5 FIL'],
    [1n, '0.000000000000000001 FIL'],
    [-1n, '-0.000000000000000001 FIL'],
    [-25n * 10n ** 17n, '-2.5 FIL'],
    [TOTAL_FILECOIN + 1n, '2000000000.000000000000000001 FIL'],
  ])('%s → %s', (amount, text) => {
    expect(formatFil(amount)).toBe(text);
    expect(parseFil(text)).toBe(amount);
  });

  it('writes attoFIL exactly, in a form parseFil reads back', () => {
    const amount = 123456789012345678901234567890n;
    expect(formatAttoFil(amount)).toBe('123456789012345678901234567890 attoFIL');
    expect(parseFil(formatAttoFil(amount))).toBe(amount);
  });
});

describe('BigInt wire form', () => {
  it.each([
    [0n, ''],
    [1n, '0001'],
    [-1n, '0101'],
    [255n, '00ff'],
    [256n, '000100'],
    [-(10n ** 18n), '010de0b6b3a7640000'],
  ])('%s ↔ %s', (value, hex) => {
    expect(toHex(bigIntToBytes(value))).toBe(hex);
    expect(bigIntFromBytes(fromHex(hex))).toBe(value);
  });

  it('holds 127 magnitude bytes and no more', () => {
    const largest = 2n ** 1016n - 1n;
    expect(bigIntToBytes(-largest)).toHaveLength(BIG_INT_MAX_SERIALIZED_LENGTH);
    expect(bigIntFromBytes(bigIntToBytes(-largest))).toBe(-largest);
    expect(() => bigIntToBytes(largest + 1n)).toThrow(/too large to serialize \(129 bytes > 128\)/);
    expect(() => bigIntFromBytes(new Uint8Array(129).fill(1), 'Message.Value')).toThrow(
      'Message.Value: big integer of 129 bytes exceeds 128',
    );
    expect(() => bigIntFromCborNode(new Uint8Array(129).fill(1), 'Message.Value')).toThrow(
      'Message.Value: expected at most 128 bytes',
    );
  });

  it.each([
    ['02ff', 'sign byte must be 0 or 1, got 2'],
    ['00', 'magnitude is not minimal'],
    ['01', 'magnitude is not minimal'],
    ['0000ff', 'magnitude is not minimal'],
  ])('rejects %s: %s', (hex, message) => {
    expect(() => bigIntFromBytes(fromHex(hex), 'BlockHeader.ParentWeight')).toThrow(
      expect.objectContaining({ code: 'ERR_CBOR_DECODE', message: expect.stringContaining(message) }),
    );
  });

  it('reads Lotus JSON decimal strings only', () => {
    expect(bigIntFromLotusJson('-42', 'V')).toBe(-42n);
    expect(bigIntFromLotusJson('+42', 'V')).toBe(42n);
    expect(bigIntFromLotusJson(undefined, 'V')).toBe(0n);
    expect(() => bigIntFromLotusJson(1.5, 'Message.Value')).toThrow(
      'Message.Value: expected a decimal string, got 1.5',
    );
    expect(() => bigIntFromLotusJson(42, 'V')).toThrow('V: expected a decimal string, got 42');
    expect(() => bigIntFromLotusJson(null, 'V')).toThrow('V: expected a decimal string, got null');
    expect(() => bigIntFromLotusJson('0x10', 'V')).toThrow('V: expected a decimal string, got "0x10"');
  });
});
