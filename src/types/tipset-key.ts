/**
 * TipSetKey: the CIDs of a tipset's blocks in canonical order. Its byte form is the binary CIDs
 * concatenated; its CBOR is one byte string of those bytes (not an array of CIDs, unlike a header's
 * Parents); Lotus JSON writes it as an array of CID links.
 */
import { CID } from 'multiformats/cid';
import { bytesEqual, concatBytes } from '../utils/bytes.js';
import { CborDecodeError, encodeCbor } from './cbor.js';
import { readBytes } from './cbor-fields.js';
import { type CborNode, decodeChainCbor } from './cbor-node.js';
import { cidOfCbor, InvalidCidError } from './cid.js';
import { cidSchema } from './field-kinds.js';
import { type CidJson, cidToLotusJson, readJsonArray, readJsonCid } from './json.js';
import type { FieldKind } from './struct.js';

export class TipSetKey {
  /** The empty key: Lotus RPC methods read it as "the current head". */
  static readonly EMPTY = new TipSetKey([], new Uint8Array(0));

  private constructor(
    readonly cids: readonly CID[],
    /** The concatenated binary CIDs. Shared, not copied: do not modify it. */
    readonly bytes: Uint8Array,
  ) {}

  /** A key of these CIDs, which must already be in canonical order. */
  static fromCids(cids: readonly CID[]): TipSetKey {
    return new TipSetKey([...cids], concatBytes(...cids.map((cid) => cid.bytes)));
  }

  /** Splits concatenated binary CIDs; throws `InvalidCidError` when they do not parse to the end. */
  static fromBytes(bytes: Uint8Array): TipSetKey {
    const cids: CID[] = [];
    let rest = bytes;
    while (rest.length > 0) {
      let cid: CID;
      let remainder: Uint8Array;
      try {
        [cid, remainder] = CID.decodeFirst(rest);
      } catch (error) {
        throw new InvalidCidError(
          `invalid tipset key: bad CID at byte ${bytes.length - rest.length}: ${(error as Error).message}`,
          { cause: error },
        );
      }
      // As go-cid, refuse a CID written in another form than its own (an explicit version 0): the
      // key would not re-encode to the bytes it came from.
      if (!bytesEqual(cid.bytes, rest.subarray(0, rest.length - remainder.length))) {
        throw new InvalidCidError(
          `invalid tipset key: CID at byte ${bytes.length - rest.length} is not in its canonical binary form`,
        );
      }
      cids.push(cid);
      rest = remainder;
    }
    return new TipSetKey(cids, Uint8Array.from(bytes));
  }

  get isEmpty(): boolean {
    return this.cids.length === 0;
  }

  /** The CID of the key's CBOR (a byte string), as Lotus `TipSetKey.Cid()`. */
  cid(): CID {
    return cidOfCbor(encodeTipSetKey(this));
  }

  equals(other: TipSetKey): boolean {
    return bytesEqual(this.bytes, other.bytes);
  }

  toString(): string {
    return `{${this.cids.join(',')}}`;
  }
}

export function tipSetKeyToCborNode(key: TipSetKey): Uint8Array {
  return key.bytes;
}

export function tipSetKeyFromCborNode(node: CborNode, path = 'TipSetKey'): TipSetKey {
  const bytes = readBytes(node, path);
  try {
    return TipSetKey.fromBytes(bytes);
  } catch (error) {
    throw new CborDecodeError(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

export function encodeTipSetKey(key: TipSetKey): Uint8Array {
  return encodeCbor(tipSetKeyToCborNode(key));
}

export function decodeTipSetKey(bytes: Uint8Array): TipSetKey {
  return tipSetKeyFromCborNode(decodeChainCbor(bytes, 'TipSetKey'));
}

export function tipSetKeyToLotusJson(key: TipSetKey): CidJson[] {
  return key.cids.map(cidToLotusJson);
}

/** An array of CID links; null means the empty key, as in Lotus. */
export function tipSetKeyFromLotusJson(json: unknown, path = 'TipSetKey'): TipSetKey {
  return TipSetKey.fromCids(readJsonArray(json, path, readJsonCid));
}

export const tipSetKeySchema = {
  title: 'TipSetKey',
  type: ['array', 'null'],
  items: cidSchema,
  description: 'the CIDs of the blocks of a tipset; null or [] for the heaviest tipset',
} as const;

/**
 * The key as a struct field, by hand: one byte string of concatenated binary CIDs in CBOR (Lotus
 * chain/types/tipset_key.go), an array of CID links in JSON.
 */
export const tipSetKeyKind: FieldKind<TipSetKey, CidJson[]> = {
  toCbor: tipSetKeyToCborNode,
  fromCbor: tipSetKeyFromCborNode,
  toJson: tipSetKeyToLotusJson,
  fromJson: tipSetKeyFromLotusJson,
  schema: tipSetKeySchema,
};
