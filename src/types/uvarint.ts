/**
 * Unsigned LEB128 varints with go-varint's rules, which addresses follow: at most 9 bytes (63 bits)
 * and minimally encoded, so every value has exactly one byte form.
 */

const MAX_LENGTH = 9;

export function encodeUvarint(value: bigint): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return Uint8Array.from(out);
}

export type UvarintResult = { value: bigint; length: number } | { error: 'overflow' | 'truncated' | 'not minimal' };

/** Reads the varint at the start of `bytes`. */
export function decodeUvarint(bytes: Uint8Array): UvarintResult {
  let value = 0n;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (i >= MAX_LENGTH || (i === MAX_LENGTH - 1 && byte >= 0x80)) return { error: 'overflow' };
    if (byte < 0x80) {
      if (byte === 0 && i > 0) return { error: 'not minimal' };
      return { value: value | (BigInt(byte) << BigInt(7 * i)), length: i + 1 };
    }
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
  }
  return { error: 'truncated' };
}
