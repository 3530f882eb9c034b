/**
 * Ethereum hashes of chain objects (filecoin-project/lotus `chain/types/ethtypes/eth_types.go`
 * `EthHashFromCid`, `node/impl/eth/utils.go` `ethTxHashFromSignedMessage`; FIP-0054 "tipset CID"):
 * a tipset's block hash is the digest of its key's CID; a delegated-signed message's hash is the
 * keccak of its Ethereum transaction, any other message's the digest of its chain CID.
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import {
  ethTransactionFromSignedMessage,
  ethTransactionHash,
  SignatureType,
  type SignedMessage,
  type TipSet,
} from '../types/index.js';
import { signedChainMessage } from '../vm/index.js';

const DAG_CBOR = 0x71;
const BLAKE2B_256 = 0xb220;

/** The 32-byte hash of a CID: its multihash digest. */
export function ethHashOfCid(cid: CID): Uint8Array {
  return cid.multihash.digest;
}

/** The dag-cbor blake2b-256 CID whose digest is `hash` (Lotus `EthHash.ToCid`). */
export function cidOfEthHash(hash: Uint8Array): CID {
  return CID.createV1(DAG_CBOR, Digest.create(BLAKE2B_256, hash));
}

const blockHashes = new WeakMap<TipSet, Uint8Array>();

/** A tipset's Ethereum block hash. */
export function ethBlockHash(tipSet: TipSet): Uint8Array {
  let hash = blockHashes.get(tipSet);
  if (hash === undefined) {
    hash = ethHashOfCid(tipSet.key.cid());
    blockHashes.set(tipSet, hash);
  }
  return hash;
}

/** A message's Ethereum transaction hash, as the chain carries the message. */
export function ethTxHashOf(signed: SignedMessage, chainId: number): Uint8Array {
  if (signed.signature.type === SignatureType.Delegated) {
    return ethTransactionHash(ethTransactionFromSignedMessage(signed, chainId));
  }
  return ethHashOfCid(signedChainMessage(signed).cid);
}
