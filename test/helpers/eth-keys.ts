/**
 * Deterministic Ethereum (delegated) test keys: a secp256k1 key derived from a label, its f410
 * address, and messages signed as the EIP-1559 transactions they convert to (method InvokeContract,
 * as every delegated message must be unless it deploys), for the devnet's chain id.
 */
import { blake2b256, secp256k1 } from '../../src/crypto/index.js';
import {
  type Address,
  delegatedAddressFromPublicKey,
  type Message,
  type SignedMessage,
  signDelegatedMessage,
} from '../../src/types/index.js';
import { EVM_INVOKE_CONTRACT_METHOD } from '../../src/vm/index.js';
import { PARAMS } from './genesis.js';

export interface EthKey {
  readonly privateKey: Uint8Array;
  /** The f410 address. */
  readonly address: Address;
}

export function ethKey(label: string): EthKey {
  const privateKey = blake2b256(new TextEncoder().encode(`eth:${label}`));
  return { privateKey, address: delegatedAddressFromPublicKey(secp256k1.publicKey(privateKey)) };
}

/** A value transfer from `key` as an Ethereum transaction would carry it; `fields` override. */
export function ethTransfer(key: EthKey, to: Address, nonce: bigint, fields: Partial<Message> = {}): Message {
  return {
    from: key.address,
    to,
    nonce,
    value: 10n ** 18n,
    gasLimit: 10_000_000n,
    gasFeeCap: 1_000_000_000n,
    gasPremium: 100_000n,
    method: EVM_INVOKE_CONTRACT_METHOD,
    params: new Uint8Array(0),
    ...fields,
  };
}

export function signEth(key: EthKey, message: Message, chainId = PARAMS.eip155ChainId): SignedMessage {
  return { message, signature: signDelegatedMessage(key.privateKey, message, chainId) };
}
