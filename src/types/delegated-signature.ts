/**
 * Delegated (type 3) signatures: Ethereum-style secp256k1 signatures over the Keccak-256 of an
 * Ethereum transaction's signing payload, from f410 accounts (FIP-0055). Signing follows Lotus's
 * wallet (`chain/messagesigner` `SigningBytes`, `lib/sigs/delegated`), verification Lotus
 * `AuthenticateMessage` (`chain/consensus/signatures.go`); the transaction codecs are in
 * eth-transaction.ts, the primitives (keccak256, digest signatures) in crypto/.
 */
import { CryptoError, ethAddressFromPublicKey, keccak256, secp256k1 } from '../crypto/index.js';
import { bytesEqual } from '../utils/bytes.js';
import { Address } from './address.js';
import { ETHEREUM_ADDRESS_MANAGER_ACTOR_ID } from './eth-address.js';
import {
  decodeSignedEthTransaction,
  type EthTransaction,
  eip1559TransactionFromMessage,
  encodeSignedEthTransaction,
  ethTransactionFromSignedMessage,
  ethTransactionSignature,
  ethTransactionSigningPayload,
  ethTransactionToMessage,
  ethTransactionVerifiableSignature,
} from './eth-transaction.js';
import { encodeMessage, type Message } from './message.js';
import { type Signature, SignatureType } from './signature.js';
import type { SignedMessage } from './signed-message.js';

/** The f410 address of a public key: namespace 10 (the EAM), its Ethereum address as subaddress. */
export function delegatedAddressFromPublicKey(publicKey: Uint8Array): Address {
  return Address.newDelegated(ETHEREUM_ADDRESS_MANAGER_ACTOR_ID, ethAddressFromPublicKey(publicKey));
}

/** The transaction hash: keccak256 of the signed encoding (for a parsed raw transaction, of the raw bytes). */
export function ethTransactionHash(tx: EthTransaction): Uint8Array {
  return keccak256(encodeSignedEthTransaction(tx));
}

/** What ecrecover takes for a signed transaction: its signing digest and `r ‖ s ‖ recovery id`. */
export function ethTransactionRecoveryInput(tx: EthTransaction): { digest: Uint8Array; signature: Uint8Array } {
  return { digest: keccak256(ethTransactionSigningPayload(tx)), signature: ethTransactionVerifiableSignature(tx) };
}

/**
 * Signs a message with a delegated key as Lotus's wallet does: the EIP-1559 transaction the
 * message converts to (InvokeContract, or CreateExternal on f010) with the network's chain id;
 * 65 bytes `r ‖ s ‖ v`, v ∈ {0, 1}.
 */
export function signDelegatedMessage(privateKey: Uint8Array, message: Message, chainId: number): Signature {
  const tx = eip1559TransactionFromMessage(message, chainId);
  return {
    type: SignatureType.Delegated,
    data: secp256k1.signDigest(privateKey, keccak256(ethTransactionSigningPayload(tx))),
  };
}

function invalid(what: string, error: unknown): CryptoError {
  if (error instanceof CryptoError) return error;
  return new CryptoError('ERR_INVALID_SIGNATURE', `${what}: ${(error as Error).message}`, { cause: error });
}

/**
 * Steps 1–4 of Lotus `AuthenticateMessage` for a delegated-signed message: rebuild the transaction,
 * require that it converts back to exactly this message, and give the digest and the 65-byte
 * signature ecrecover needs. For callers that recover many keys at once
 * (`secp256k1.recoverDigestBatch`), then compare `delegatedAddressFromPublicKey` with the sender.
 * Throws a CryptoError (`ERR_INVALID_SIGNATURE`) saying what is wrong.
 */
export function delegatedRecoveryInput(
  signed: SignedMessage,
  chainId: number,
): { digest: Uint8Array; signature: Uint8Array } {
  let tx: EthTransaction;
  let rebuilt: Message;
  try {
    tx = ethTransactionFromSignedMessage(signed, chainId);
    rebuilt = ethTransactionToMessage(tx, signed.message.from, chainId);
  } catch (error) {
    throw invalid('not a valid Ethereum transaction', error);
  }
  if (!bytesEqual(encodeMessage(rebuilt), encodeMessage(signed.message))) {
    throw new CryptoError(
      'ERR_INVALID_SIGNATURE',
      'Ethereum transaction roundtrip mismatch: the message has fields its transaction cannot carry (legacy: GasPremium must equal GasFeeCap)',
    );
  }
  return ethTransactionRecoveryInput(tx);
}

/**
 * Lotus `AuthenticateMessage` for a delegated signature: the message must be exactly the
 * transaction its signature signs, and the key that signature recovers must be the sender's f410.
 * Throws a CryptoError saying what is wrong.
 */
export function verifyDelegatedSignature(signed: SignedMessage, chainId: number): void {
  const { digest, signature } = delegatedRecoveryInput(signed, chainId);
  const signer = delegatedAddressFromPublicKey(secp256k1.recoverDigest(signature, digest));
  if (!signer.equals(signed.message.from)) {
    throw new CryptoError(
      'ERR_INVALID_SIGNATURE',
      `delegated signature is by ${signer}, not by the sender ${signed.message.from}`,
    );
  }
}

/**
 * A raw signed transaction (`eth_sendRawTransaction`): the transaction, the signed Filecoin message
 * from the sender it recovers, and its hash, keccak256 of the raw bytes. Throws a CryptoError when
 * the signature recovers no key; an `EthTransactionError` when the bytes are no valid transaction
 * for this chain.
 */
export function parseRawEthTransaction(
  raw: Uint8Array,
  chainId: number,
): { tx: EthTransaction; signed: SignedMessage; hash: Uint8Array } {
  const tx = decodeSignedEthTransaction(raw, chainId);
  const { digest, signature } = ethTransactionRecoveryInput(tx);
  const from = delegatedAddressFromPublicKey(secp256k1.recoverDigest(signature, digest));
  const signed = { message: ethTransactionToMessage(tx, from, chainId), signature: ethTransactionSignature(tx) };
  return { tx, signed, hash: keccak256(raw) };
}
