import { CID } from 'multiformats/cid';
import { DAG_CBOR_CODE } from '../types/index.js';

const CID_TAG = 42;

/** A head's argument: a length, a count or a tag number (only as exact as a length needs to be). */
function readArgument(bytes: Uint8Array, at: number, info: number): [argument: number, next: number] {
  if (info < 24) return [info, at];
  if (info === 24) return [bytes[at]!, at + 1];
  if (info === 25) return [(bytes[at]! << 8) | bytes[at + 1]!, at + 2];
  if (info === 26) return [new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0), at + 4];
  return [Number(new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0)), at + 8];
}

/**
 * The CIDs a block links to, found by walking its CBOR heads without decoding values (state blocks
 * are DAG-CBOR; blocks of other codecs link to nothing here).
 */
export function blockLinks(cid: CID, bytes: Uint8Array): CID[] {
  const links: CID[] = [];
  if (cid.code !== DAG_CBOR_CODE) return links;
  forEachLinkBytes(bytes, (start, end) => links.push(CID.decode(bytes.subarray(start, end))));
  return links;
}

/**
 * Calls `visit` with where the binary form of each CID a DAG-CBOR block links to lies in `bytes`
 * (`bytes[start..end]`), in order: bulk walks (snapshot import and export) read the codec and key
 * their sets on these bytes without building an object per link.
 */
export function forEachLinkBytes(bytes: Uint8Array, visit: (start: number, end: number) => void): void {
  let at = 0;
  for (let pending = 1; pending > 0; pending--) {
    const initial = bytes[at++]!;
    const major = initial >>> 5;
    const [argument, next] = readArgument(bytes, at, initial & 0x1f);
    at = next;
    if (major === 2 || major === 3) at += argument;
    else if (major === 4) pending += argument;
    else if (major === 5) pending += 2 * argument;
    else if (major === 6 && argument === CID_TAG) {
      const [length, start] = readArgument(bytes, at + 1, bytes[at]! & 0x1f);
      // Link bytes are 0x00 (the identity multibase prefix) and the binary CID.
      visit(start + 1, start + length);
      at = start + length;
    } else if (major === 6) pending++;
  }
}
