/**
 * Batch verification of secp256k1 message signatures: the public keys are recovered off the main
 * thread (native, `secp256k1.recoverBatch`) in a few parallel batches, then compared with each
 * sender's key address. A message signs the bytes of its unsigned CID.
 */
import { secp256k1 } from '../crypto/index.js';
import { Address, SignatureType, type SignedMessage } from '../types/index.js';
import { signedChainMessage, signingBytesOf } from './chain-message.js';
import { VmError, VmErrorCode } from './errors.js';

/** Batches run concurrently on libuv's thread pool. */
const PARALLEL_BATCHES = 2;

/**
 * Throws `VmError` (ERR_VM_INVALID_SIGNATURE) naming the first message whose signature is not a
 * secp256k1 signature by its sender's key. `keyAddressOf` maps a sender to its key address.
 */
export async function verifySecpMessageSignatures(
  messages: readonly SignedMessage[],
  keyAddressOf: (sender: Address) => Address,
): Promise<void> {
  const items = messages.map((signed) => {
    if (signed.signature.type !== SignatureType.Secp256k1) {
      throw invalidSignature(signed, `signature type ${signed.signature.type} is not secp256k1`);
    }
    return { signature: signed.signature.data, data: signingBytesOf(signed) };
  });
  const size = Math.ceil(items.length / PARALLEL_BATCHES);
  const batches = [];
  for (let start = 0; start < items.length; start += size)
    batches.push(secp256k1.recoverBatch(items.slice(start, start + size)));
  const keys = (await Promise.all(batches)).flat();
  for (const [index, signed] of messages.entries()) {
    const key = keys[index];
    if (key === null || key === undefined) throw invalidSignature(signed, 'no public key recovers from the signature');
    if (!Address.newSecp256k1(key).equals(keyAddressOf(signed.message.from))) {
      throw invalidSignature(signed, `not signed by the key of ${signed.message.from}`);
    }
  }
}

function invalidSignature(signed: SignedMessage, reason: string): VmError {
  return new VmError(VmErrorCode.InvalidSignature, `message ${signedChainMessage(signed).cid}: ${reason}`);
}
