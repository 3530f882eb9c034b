/** Bytes as a latin1 string: a Map key far cheaper to build than base32 text (addresses, CIDs). */
export function byteKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
