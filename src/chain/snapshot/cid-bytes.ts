/**
 * Binary CIDs read in place (https://github.com/multiformats/cid, "How does it work?"): bulk
 * import and export handle hundreds of thousands of blocks and millions of links, and building a
 * CID object for each costs more than hashing the block. These read what the walks need — codec,
 * multihash code, digest — from the bytes, and a CID object is made only for messages and errors.
 */
import { CID } from 'multiformats/cid';
import type { Block } from '../../ipld/index.js';
import { DAG_CBOR_CODE } from '../../types/index.js';

const RAW_CODE = 0x55;
const CBOR_CODE = 0x51;
const IDENTITY_CODE = 0x00;
/** A CIDv0 is a bare sha2-256 multihash: 0x12, 0x20, then 32 bytes (codec dag-pb). */
const SHA2_256_CODE = 0x12;
const DAG_PB_CODE = 0x70;
const CIDV0_BYTES = 34;

/** A block as bulk import and export handle it: its CID as bytes, the CID object only on demand. */
export class EncodedBlock implements Block {
  readonly cidBytes: Uint8Array;
  readonly bytes: Uint8Array;

  constructor(cidBytes: Uint8Array, bytes: Uint8Array) {
    this.cidBytes = cidBytes;
    this.bytes = bytes;
  }

  get cid(): CID {
    return CID.decode(this.cidBytes);
  }
}

export interface CidParts {
  /** Offset just past the CID. */
  readonly end: number;
  readonly codec: number;
  readonly hashCode: number;
  readonly digest: Uint8Array;
}

/** A minimal unsigned varint of at most 4 bytes at `at` (codecs and multihash codes are small). */
function smallVarint(bytes: Uint8Array, at: number): [value: number, next: number] | undefined {
  let value = 0;
  for (let i = 0; i < 4 && at + i < bytes.length; i++) {
    const byte = bytes[at + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) return byte === 0 && i > 0 ? undefined : [value, at + i + 1];
  }
  return undefined;
}

/**
 * The CID starting at `at` in `bytes` (a CAR section, or a link): v1 with minimal varints and the
 * digest length its multihash declares, or v0. A string saying what is wrong when it is not one.
 */
export function readCid(bytes: Uint8Array, at = 0): CidParts | string {
  if (bytes[at] === SHA2_256_CODE && bytes[at + 1] === 0x20) {
    if (bytes.length < at + CIDV0_BYTES) return 'the CIDv0 is cut short';
    return {
      end: at + CIDV0_BYTES,
      codec: DAG_PB_CODE,
      hashCode: SHA2_256_CODE,
      digest: bytes.subarray(at + 2, at + CIDV0_BYTES),
    };
  }
  const version = smallVarint(bytes, at);
  if (version === undefined || version[0] !== 1) return 'not a CIDv1 or CIDv0';
  const codec = smallVarint(bytes, version[1]);
  const hashCode = codec && smallVarint(bytes, codec[1]);
  const length = hashCode && smallVarint(bytes, hashCode[1]);
  if (length === undefined) return 'the CID’s codec or multihash is malformed';
  const end = length[1] + length[0];
  if (end > bytes.length) return 'the CID’s digest is cut short';
  return { end, codec: codec![0], hashCode: hashCode![0], digest: bytes.subarray(length[1], end) };
}

/** What a DAG walk does with a link (`linkKind`). */
export const LinkKind = {
  /** Not a CID. */
  Invalid: -1,
  /** Not followed: an identity CID (its bytes are inline) or a codec the walks do not read. */
  Skipped: 0,
  /** A raw block: present or not, it links to nothing. */
  Raw: 1,
  /** A DAG-CBOR block, whose own links are followed. */
  DagCbor: 2,
} as const;
export type LinkKind = (typeof LinkKind)[keyof typeof LinkKind];

/** The 6 bytes every chain CID starts with: v1, DAG-CBOR, blake2b-256, 32-byte digest. */
const CHAIN_CID_PREFIX = Uint8Array.of(0x01, 0x71, 0xa0, 0xe4, 0x02, 0x20);
/** A CIDv1 with a one-byte codec and a blake2b-256 multihash: every chain block's. */
export const CHAIN_CID_BYTES = 38;

function isChainCid(bytes: Uint8Array, start = 0, end = bytes.length): boolean {
  if (end - start !== CHAIN_CID_BYTES) return false;
  for (let i = 0; i < CHAIN_CID_PREFIX.length; i++) if (bytes[start + i] !== CHAIN_CID_PREFIX[i]) return false;
  return true;
}

/** A v1 identity CID with one-byte codec and length (actor code CIDs, which every actor links to). */
function isShortIdentityCid(bytes: Uint8Array, start: number, end: number): boolean {
  return (
    bytes[start] === 0x01 &&
    bytes[start + 1]! < 0x80 &&
    bytes[start + 2] === IDENTITY_CODE &&
    bytes[start + 3]! < 0x80 &&
    end === start + 4 + bytes[start + 3]!
  );
}

/**
 * What the chain's DAG walks do with a link (`DagChecker` in import.ts, `SnapshotWalk`, Lotus's
 * snapshot walk): follow DAG-CBOR and raw blocks, skip identity CIDs and other codecs. The CID is
 * `bytes[start..end]` (a link read in place, `forEachLinkBytes`), or all of `bytes`.
 */
export function linkKind(bytes: Uint8Array, start = 0, end = bytes.length): LinkKind {
  if (isChainCid(bytes, start, end)) return LinkKind.DagCbor;
  if (isShortIdentityCid(bytes, start, end)) return LinkKind.Skipped;
  const parts = readCid(bytes, start);
  if (typeof parts === 'string' || parts.end !== end) return LinkKind.Invalid;
  if (parts.hashCode === IDENTITY_CODE) return LinkKind.Skipped;
  if (parts.codec === DAG_CBOR_CODE) return LinkKind.DagCbor;
  return parts.codec === RAW_CODE ? LinkKind.Raw : LinkKind.Skipped;
}

/**
 * Whether a snapshot holds the block this CID names (Lotus's snapshot walk): DAG-CBOR, CBOR and
 * raw blocks; not identity CIDs. Undefined when the bytes are not a CID.
 */
export function exportable(cid: Uint8Array): boolean | undefined {
  if (isChainCid(cid)) return true;
  const parts = readCid(cid);
  if (typeof parts === 'string' || parts.end !== cid.length) return undefined;
  if (parts.hashCode === IDENTITY_CODE) return false;
  return parts.codec === DAG_CBOR_CODE || parts.codec === RAW_CODE || parts.codec === CBOR_CODE;
}

/** The CID's text form for a message (hex when multiformats would not read it). */
export function cidText(cid: Uint8Array): string {
  try {
    return CID.decode(cid).toString();
  } catch {
    return `0x${Buffer.from(cid.buffer, cid.byteOffset, cid.length).toString('hex')}`;
  }
}
