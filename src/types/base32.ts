/**
 * The base32 of address strings: RFC 4648 alphabet in lower case, no padding. Decoding is strict the
 * way go-address is (it re-encodes and compares), so each byte string has exactly one spelling.
 */

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const VALUES = new Map([...ALPHABET].map((c, i) => [c, i]));

export function encodeBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Decodes canonical unpadded base32; throws a SyntaxError saying why `text` is not. */
export function decodeBase32(text: string): Uint8Array {
  // 1, 3 and 6 trailing characters cannot end a whole number of bytes.
  if ([1, 3, 6].includes(text.length % 8)) throw new SyntaxError(`${text.length} characters cannot be unpadded base32`);
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (let i = 0; i < text.length; i++) {
    const value = VALUES.get(text[i] as string);
    if (value === undefined) {
      throw new SyntaxError(`character ${JSON.stringify(text[i])} at ${i} is not in the lower-case base32 alphabet`);
    }
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) throw new SyntaxError('non-zero trailing bits in the last character');
  return out;
}
