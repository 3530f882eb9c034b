/**
 * Errors raised by the chain types. Decoding errors always name the type and field (`Message.Nonce`,
 * `BlockHeader.Parents[2]`) so a bad block or RPC request can be diagnosed from the message alone.
 * `CborDecodeError` (cbor.ts) and `InvalidCidError` (cid.ts) complete the set.
 */
import { LedgerError } from '../utils/errors.js';

/** Error codes of `AddressError`; the names mirror go-address's error values. */
export const AddressErrorCode = {
  InvalidLength: 'ERR_ADDRESS_INVALID_LENGTH',
  UnknownNetwork: 'ERR_ADDRESS_UNKNOWN_NETWORK',
  UnknownProtocol: 'ERR_ADDRESS_UNKNOWN_PROTOCOL',
  InvalidChecksum: 'ERR_ADDRESS_INVALID_CHECKSUM',
  InvalidPayload: 'ERR_ADDRESS_INVALID_PAYLOAD',
  InvalidEncoding: 'ERR_ADDRESS_INVALID_ENCODING',
  /** The address is valid but of another protocol than the operation needs (e.g. an ID of an f1). */
  WrongProtocol: 'ERR_ADDRESS_WRONG_PROTOCOL',
  /** The address has no Ethereum form, or a `0x…` string is not a 20-byte Ethereum address. */
  NotEthAddress: 'ERR_ADDRESS_NOT_ETH',
} as const;
export type AddressErrorCode = (typeof AddressErrorCode)[keyof typeof AddressErrorCode];

/** An address string, byte form or constructor argument is invalid; `code` says how. */
export class AddressError extends LedgerError {
  declare readonly code: AddressErrorCode;

  constructor(code: AddressErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  /** The same error with the location of the address (`Message.To`) in front of its message. */
  at(path: string): AddressError {
    return new AddressError(this.code, `${path}: ${this.message}`, { cause: this });
  }
}

/** Lotus JSON input does not have the shape or values a type needs; the message names the JSON path. */
export class JsonDecodeError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_JSON_DECODE', message, options);
  }
}

/** A FIL amount string could not be parsed (`parseFil`). */
export class TokenAmountError extends LedgerError {
  constructor(message: string) {
    super('ERR_INVALID_TOKEN_AMOUNT', message);
  }
}

/** Block headers that cannot form a tipset (no blocks, no ticket, mismatching shared fields). */
export class TipSetError extends LedgerError {
  constructor(message: string) {
    super('ERR_INVALID_TIPSET', message);
  }
}

/** A message fails a syntactic rule that needs no chain state (Lotus `ValidForBlockInclusion`). */
export class InvalidMessageError extends LedgerError {
  constructor(message: string) {
    super('ERR_INVALID_MESSAGE', message);
  }
}
