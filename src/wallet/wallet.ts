/**
 * The node's wallet over the keystore, with Lotus's `LocalWallet` semantics so a Lotus keystore
 * works unchanged: keys are stored as `wallet-<address>` (the address written with the network
 * char in force), the default key as a copy under `default`, and a deleted key is kept as
 * `trash-<address>` until removed by hand. The first key ever created becomes the default.
 * A message from a delegated (f410) key is signed as the EIP-1559 transaction it stands for, with
 * the network's EIP-155 chain id (filecoin-project/lotus `chain/messagesigner`, `SigningBytes`).
 */
import { CryptoError } from '../crypto/index.js';
import {
  Address,
  EthTransactionError,
  getDefaultNetwork,
  type Message,
  messageSigningBytes,
  type Network,
  type Signature,
  type SignedMessage,
  signDelegatedMessage,
} from '../types/index.js';
import { KEY_INFO_NOT_FOUND, WalletError, WalletErrorCode } from './errors.js';
import type { KeyInfo } from './key-info.js';
import { KEY_TYPES, KeyType } from './key-type.js';
import { generateKey, keyFromKeyInfo, signWithKey, type WalletKey } from './keys.js';
import type { Keystore, StoredKey } from './keystore.js';

const WALLET_PREFIX = 'wallet-';
const TRASH_PREFIX = 'trash-';
const DEFAULT_NAME = 'default';

function otherNetwork(network: Network): Network {
  return network === 'f' ? 't' : 'f';
}

/** The names a key may be stored under: the current network's spelling first (Lotus `tryFind`). */
function walletNames(address: Address): string[] {
  const network = getDefaultNetwork();
  return [network, otherNetwork(network)].map((n) => `${WALLET_PREFIX}${address.toString(n)}`);
}

function toKeyInfo(stored: StoredKey, name: string): KeyInfo {
  if (!(KEY_TYPES as readonly string[]).includes(stored.type)) {
    throw new WalletError(
      WalletErrorCode.UnsupportedKeyType,
      `key '${name}' has type ${JSON.stringify(stored.type)}, which this node does not support`,
    );
  }
  return { type: stored.type as KeyType, privateKey: stored.privateKey };
}

export interface WalletOptions {
  /** The network's EIP-155 chain id, which delegated keys sign messages for (params `eip155ChainId`). */
  readonly eip155ChainId?: number | undefined;
}

export class Wallet {
  readonly #keystore: Keystore;
  readonly #eip155ChainId: number | undefined;

  constructor(keystore: Keystore, options: WalletOptions = {}) {
    this.#keystore = keystore;
    this.#eip155ChainId = options.eip155ChainId;
  }

  /** Generates and stores a key; it becomes the default if there is none yet. */
  newKey(type: KeyType): Address {
    const key = generateKey(type);
    this.#keystore.put(walletNames(key.address)[0] as string, key.keyInfo);
    if (!this.#keystore.has(DEFAULT_NAME)) this.#keystore.put(DEFAULT_NAME, key.keyInfo);
    return key.address;
  }

  /** Every address in the wallet, sorted by its string form, each once whatever its stored spelling. */
  list(): Address[] {
    const byString = new Map<string, Address>();
    for (const name of this.#keystore.list()) {
      if (!name.startsWith(WALLET_PREFIX)) continue;
      let address: Address;
      try {
        address = Address.fromString(name.slice(WALLET_PREFIX.length));
      } catch (error) {
        throw new WalletError(WalletErrorCode.KeystoreCorrupt, `converting key name '${name}' to an address`, {
          cause: error,
        });
      }
      byString.set(address.toString(), address);
    }
    return [...byString.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, address]) => address);
  }

  has(address: Address): boolean {
    return this.#find(address) !== undefined;
  }

  defaultAddress(): Address {
    const stored = this.#keystore.tryGet(DEFAULT_NAME);
    if (stored === undefined) {
      throw new WalletError(
        WalletErrorCode.KeyNotFound,
        `failed to get default key: opening key '${DEFAULT_NAME}': ${KEY_INFO_NOT_FOUND}`,
      );
    }
    return keyFromKeyInfo(toKeyInfo(stored, DEFAULT_NAME)).address;
  }

  setDefault(address: Address): void {
    const key = this.#find(address);
    if (key === undefined) {
      throw new WalletError(
        WalletErrorCode.KeyNotFound,
        `opening key '${walletNames(address)[0]}': ${KEY_INFO_NOT_FOUND}`,
      );
    }
    if (this.#keystore.has(DEFAULT_NAME)) this.#keystore.delete(DEFAULT_NAME);
    this.#keystore.put(DEFAULT_NAME, key.keyInfo);
  }

  /**
   * Signs raw bytes: secp256k1 over their blake2b-256, BLS over the bytes themselves, delegated
   * over their keccak-256.
   */
  sign(address: Address, data: Uint8Array): Signature {
    return signWithKey(this.#signingKey(address), data);
  }

  /**
   * Signs a message with the key of `address`; nonce and gas are left as they are. secp256k1 and
   * BLS keys sign its CID bytes, a delegated key the EIP-1559 transaction the message converts to
   * (only InvokeContract or CreateExternal messages from its f410 address convert).
   */
  signMessage(address: Address, message: Message): SignedMessage {
    const key = this.#signingKey(address);
    if (key.keyInfo.type !== KeyType.Delegated) {
      return { message, signature: signWithKey(key, messageSigningBytes(message)) };
    }
    if (this.#eip155ChainId === undefined) {
      throw new WalletError(
        WalletErrorCode.CannotSign,
        `signing a message from ${address}: this wallet does not know the network's EIP-155 chain id`,
      );
    }
    try {
      return { message, signature: signDelegatedMessage(key.keyInfo.privateKey, message, this.#eip155ChainId) };
    } catch (error) {
      if (!(error instanceof CryptoError || error instanceof EthTransactionError)) throw error;
      throw new WalletError(
        WalletErrorCode.CannotSign,
        `signing a message from ${address} as an Ethereum transaction: ${error.message}`,
        { cause: error },
      );
    }
  }

  export(address: Address): KeyInfo {
    const key = this.#find(address);
    if (key === undefined) throw new WalletError(WalletErrorCode.KeyNotFound, 'key not found');
    return key.keyInfo;
  }

  import(keyInfo: KeyInfo): Address {
    const key = keyFromKeyInfo(keyInfo);
    try {
      this.#keystore.put(walletNames(key.address)[0] as string, key.keyInfo);
    } catch (error) {
      if (error instanceof WalletError) {
        throw new WalletError(error.code, `saving to keystore: ${error.message}`, { cause: error });
      }
      throw error;
    }
    return key.address;
  }

  /**
   * Soft-deletes a key: it moves to `trash-<address>` (replacing an older trashed copy) and stops
   * being the default. Deleting an address the wallet does not hold is not an error.
   */
  delete(address: Address): void {
    const key = this.#find(address);
    if (key === undefined) return;
    const trashName = `${TRASH_PREFIX}${key.address}`;
    if (this.#keystore.has(trashName)) this.#keystore.delete(trashName);
    this.#keystore.put(trashName, key.keyInfo);
    for (const name of walletNames(address)) {
      if (this.#keystore.has(name)) this.#keystore.delete(name);
    }
    const stored = this.#keystore.tryGet(DEFAULT_NAME);
    if (stored !== undefined && keyFromKeyInfo(toKeyInfo(stored, DEFAULT_NAME)).address.equals(key.address)) {
      this.#keystore.delete(DEFAULT_NAME);
    }
  }

  #signingKey(address: Address): WalletKey {
    const key = this.#find(address);
    if (key === undefined) {
      throw new WalletError(WalletErrorCode.KeyNotFound, `signing using key '${address}': ${KEY_INFO_NOT_FOUND}`);
    }
    return key;
  }

  #find(address: Address): WalletKey | undefined {
    for (const name of walletNames(address)) {
      const stored = this.#keystore.tryGet(name);
      if (stored === undefined) continue;
      const key = keyFromKeyInfo(toKeyInfo(stored, name));
      // A file renamed by hand must not make the wallet sign for an address with another key.
      if (!key.address.equals(address)) {
        throw new WalletError(WalletErrorCode.KeystoreCorrupt, `key '${name}' holds the key of ${key.address}`);
      }
      return key;
    }
    return undefined;
  }
}
