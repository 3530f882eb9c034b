export { KEY_INFO_NOT_FOUND, WalletError, WalletErrorCode } from './errors.js';
export { type KeyInfo, type KeyInfoJson, keyInfoFromLotusJson, keyInfoToLotusJson } from './key-info.js';
export { KEY_TYPES, KeyType, keyTypeFromLotusJson, signatureTypeOf } from './key-type.js';
export { generateKey, keyFromKeyInfo, signWithKey, verifySignature, type WalletKey } from './keys.js';
export { Keystore, type StoredKey } from './keystore.js';
export { Wallet, type WalletOptions } from './wallet.js';
