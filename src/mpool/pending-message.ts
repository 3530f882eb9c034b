/**
 * A message as the pool holds it: the signed message plus what the pool keeps needing from it —
 * its chain CID, the length OnChainMessage charges for, the funds it reserves — computed once from
 * one CBOR encoding.
 */
import type { CID } from 'multiformats/cid';
import { byteKey } from '../state/index.js';
import type { SignedMessage } from '../types/index.js';
import { onChainMessage, signedChainMessage } from '../vm/index.js';

export interface PendingMessage {
  readonly signed: SignedMessage;
  /** The chain CID: of the SignedMessage for secp256k1, of the Message for BLS. */
  readonly cid: CID;
  /** `byteKey` of the CID bytes. */
  readonly key: string;
  /** What OnChainMessage charges for: SignedMessage size for secp256k1, Message size for BLS. */
  readonly chainLength: number;
  /** `gasFeeCap × gasLimit` (Lotus `RequiredFunds`). */
  readonly requiredFunds: bigint;
}

export function pendingMessage(signed: SignedMessage): PendingMessage {
  const { cid, chainLength } = signedChainMessage(signed);
  return {
    signed,
    cid,
    key: byteKey(cid.bytes),
    chainLength,
    requiredFunds: signed.message.gasFeeCap * signed.message.gasLimit,
  };
}

/** The least gas a message of `chainLength` bytes can have: what its inclusion costs (Lotus `OnChainMessage(len).Total()`). */
export function inclusionGas(chainLength: number): bigint {
  const charge = onChainMessage(chainLength);
  // Whole-gas prices, so the milligas total divides exactly.
  return BigInt((charge.compute + charge.storage) / 1000);
}
