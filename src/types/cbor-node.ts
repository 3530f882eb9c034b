/**
 * DAG-CBOR decoding for typed chain objects. It applies exactly the rules of `decodeCbor` (the
 * options of @ipld/dag-cbor: canonical lengths and integers, no indefinite lengths, CIDs as tag 42
 * in their one canonical binary form),
 * with two differences that field-level validation needs:
 * - floats come back as `CborFloat` boxes: a float 1.0 would otherwise be indistinguishable from the
 *   integer 1, and Filecoin tuples never hold floats, so `Height: 1.0` must be rejected, not
 *   re-encoded as another block;
 * - `undefined` (0xf7) is rejected instead of being turned into null, which would change the bytes.
 */
import { decode, Token, Tokenizer, Type } from 'cborg';
import type { CID } from 'multiformats/cid';
import { CborDecodeError, DAG_CBOR_DECODE_OPTIONS } from './cbor.js';

/** A CBOR float, kept apart from integers so that readers can reject it. */
export class CborFloat {
  constructor(readonly value: number) {}
}

/** What `decodeChainCbor` returns: the DAG-CBOR data model with floats boxed. */
export type CborNode =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | CID
  | CborFloat
  | CborNode[]
  | { [key: string]: CborNode };

class FloatBoxingTokenizer {
  readonly #inner: Tokenizer;

  constructor(data: Uint8Array, options: object) {
    this.#inner = new Tokenizer(data, options);
  }

  done(): boolean {
    return this.#inner.done();
  }

  pos(): number {
    return this.#inner.pos();
  }

  next(): Token {
    const token = this.#inner.next();
    if (Type.equals(token.type, Type.float)) {
      return new Token(Type.float, new CborFloat(token.value as number), token.encodedLength);
    }
    return token;
  }
}

const options = { ...DAG_CBOR_DECODE_OPTIONS, allowUndefined: false, coerceUndefinedToNull: false };

/** Decodes canonical DAG-CBOR into a `CborNode` tree; throws `CborDecodeError` naming `what`. */
export function decodeChainCbor(bytes: Uint8Array, what: string): CborNode {
  // A plain Uint8Array makes cborg copy byte strings out (Buffer#slice would alias the input).
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return decode(data, { ...options, tokenizer: new FloatBoxingTokenizer(data, options) }) as CborNode;
  } catch (error) {
    throw new CborDecodeError(`invalid DAG-CBOR for ${what}: ${(error as Error).message}`, { cause: error });
  }
}
