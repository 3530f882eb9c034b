/**
 * Messages for tests: an unsigned message with ample gas defaults, and its secp256k1 signing.
 */
import { secp256k1 } from '../../src/crypto/index.js';
import { type Message, messageSigningBytes, SignatureType, type SignedMessage } from '../../src/types/index.js';
import type { SecpKey } from './keys.js';

/** A message with ample gas (10M limit, fee cap 0.2 nanoFIL) and no value; `fields` override. */
export function message(fields: Partial<Message> & Pick<Message, 'from' | 'to'>): Message {
  return {
    nonce: 0n,
    value: 0n,
    gasLimit: 10_000_000n,
    gasFeeCap: 200_000_000n,
    gasPremium: 100_000n,
    method: 0n,
    params: new Uint8Array(0),
    ...fields,
  };
}

export function signSecp(key: SecpKey, unsigned: Message): SignedMessage {
  return {
    message: unsigned,
    signature: { type: SignatureType.Secp256k1, data: secp256k1.sign(key.privateKey, messageSigningBytes(unsigned)) },
  };
}
