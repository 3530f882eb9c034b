/**
 * Messages as blocks carry them: the CID the chain knows each by and the bytes it takes (what
 * OnChainMessage charges). A signed message is encoded once, and what signature checks, execution
 * and the API all need from that encoding — its chain CID and the CID its sender signed — is
 * remembered for the message object (the pool answers MpoolPending from the same objects).
 */
import type { CID } from 'multiformats/cid';
import {
  cidOfCbor,
  encodeMessage,
  encodeSignedMessage,
  type Message,
  SignatureType,
  type SignedMessage,
} from '../types/index.js';

export interface ChainMessage {
  readonly message: Message;
  /** The SignedMessage's CID for secp256k1/delegated signatures, the Message's for BLS. */
  readonly cid: CID;
  /** SignedMessage CBOR size, or Message CBOR size for BLS. */
  readonly chainLength: number;
}

interface EncodedSignedMessage {
  /** The SignedMessage CBOR. */
  readonly bytes: Uint8Array;
  readonly chainMessage: ChainMessage;
  /** The CID of the unsigned message: what the sender signed (the chain CID of a BLS message). */
  readonly unsignedCid: CID;
}

const encodings = new WeakMap<SignedMessage, EncodedSignedMessage>();

/** Bytes of a canonical CBOR byte string of `length` bytes, head included. */
function cborByteStringSize(length: number): number {
  return length + (length < 24 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5);
}

function encodeOnce(signed: SignedMessage): EncodedSignedMessage {
  let encoded = encodings.get(signed);
  if (encoded === undefined) {
    const bytes = encodeSignedMessage(signed);
    // `[Message, Signature]`: a one-byte array head, the Message's bytes, then the signature (type byte + data).
    const unsigned = bytes.subarray(1, bytes.length - cborByteStringSize(signed.signature.data.length + 1));
    const unsignedCid = cidOfCbor(unsigned);
    const chainMessage =
      signed.signature.type === SignatureType.BLS
        ? { message: signed.message, cid: unsignedCid, chainLength: unsigned.length }
        : { message: signed.message, cid: cidOfCbor(bytes), chainLength: bytes.length };
    encoded = { bytes, chainMessage, unsignedCid };
    encodings.set(signed, encoded);
  }
  return encoded;
}

/** A BLS message: known and charged by its unsigned form (its signature is aggregated in the block). */
export function blsChainMessage(message: Message): ChainMessage {
  const bytes = encodeMessage(message);
  return { message, cid: cidOfCbor(bytes), chainLength: bytes.length };
}

/** A signed message as the chain knows it: by its signed form, or by its unsigned form for BLS. */
export function signedChainMessage(signed: SignedMessage): ChainMessage {
  return encodeOnce(signed).chainMessage;
}

/** What the sender of a message signed: its unsigned message's binary CID. */
export function signingBytesOf(signed: SignedMessage): Uint8Array {
  return encodeOnce(signed).unsignedCid.bytes;
}

/** The CID of the unsigned message (Lotus JSON's `Message.CID`). */
export function unsignedMessageCid(signed: SignedMessage): CID {
  return encodeOnce(signed).unsignedCid;
}

/** The SignedMessage CBOR, encoded once per message object (what the pool persists). */
export function signedMessageBytes(signed: SignedMessage): Uint8Array {
  return encodeOnce(signed).bytes;
}
