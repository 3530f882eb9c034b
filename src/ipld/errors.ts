import type { CID } from '../types/cid.js';
import { LedgerError } from '../utils/errors.js';

/** A block the caller needs is not in the blockstore (a partial state, or a store missing data). */
export class BlockNotFoundError extends LedgerError {
  readonly cid: CID;

  constructor(cid: CID, what = 'block') {
    super('ERR_BLOCK_NOT_FOUND', `${what} ${cid.toString()} not found in the blockstore`, {
      details: { cid: cid.toString() },
    });
    this.cid = cid;
  }
}

/** A block decoded as CBOR but does not have the shape of the HAMT/AMT node it should be. */
export class MalformedNodeError extends LedgerError {
  constructor(what: string, cid: CID | undefined, reason: string) {
    const where = cid === undefined ? '' : ` ${cid.toString()}`;
    super('ERR_MALFORMED_NODE', `malformed ${what}${where}: ${reason}`, {
      details: { what, cid: cid?.toString(), reason },
    });
  }
}

/** An AMT index beyond the largest index the format allows (2^64 − 2), or not an unsigned integer. */
export class AmtIndexOutOfRangeError extends LedgerError {
  constructor(index: number | bigint) {
    super('ERR_AMT_INDEX_OUT_OF_RANGE', `AMT index ${index} is out of range (0 to 2^64 − 2)`, {
      details: { index: index.toString() },
    });
  }
}

/** More keys collide on every hash bit than a bucket holds: the HAMT cannot grow deeper. */
export class HamtMaxDepthError extends LedgerError {
  constructor(bitWidth: number) {
    super('ERR_HAMT_MAX_DEPTH', `HAMT ran out of hash bits (bit width ${bitWidth}): too many colliding keys`);
  }
}

/** A block's bytes do not hash to its CID, or its CID uses a hash function we cannot check. */
export class BlockVerificationError extends LedgerError {
  constructor(cid: CID, reason: string) {
    super('ERR_BLOCK_VERIFICATION', `block ${cid.toString()} failed verification: ${reason}`, {
      details: { cid: cid.toString(), reason },
    });
  }
}

/** A CAR stream is truncated or malformed. */
export class CarFormatError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CAR_FORMAT', message, options);
  }
}
