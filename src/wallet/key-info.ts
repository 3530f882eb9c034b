/**
 * Lotus `types.KeyInfo`: `{"Type": "secp256k1" | "bls" | "delegated", "PrivateKey": base64}`, the
 * format of WalletExport/WalletImport and of keystore files. secp256k1 and delegated private keys are
 * 32 big-endian bytes (a delegated key is the Ethereum private key, as MetaMask shows it in hex);
 * BLS private keys 32 little-endian bytes (filecoin-ffi's order), as Lotus stores them.
 */
import { JsonDecodeError, jsonField, readJsonBytes, readJsonObject } from '../types/index.js';
import { toBase64 } from '../utils/bytes.js';
import { type KeyType, keyTypeFromLotusJson } from './key-type.js';

export const PRIVATE_KEY_LENGTH = 32;

export interface KeyInfo {
  readonly type: KeyType;
  readonly privateKey: Uint8Array;
}

export interface KeyInfoJson {
  Type: KeyType;
  PrivateKey: string;
}

export function keyInfoToLotusJson(keyInfo: KeyInfo): KeyInfoJson {
  return { Type: keyInfo.type, PrivateKey: toBase64(keyInfo.privateKey) };
}

export function keyInfoFromLotusJson(json: unknown, path = 'KeyInfo'): KeyInfo {
  const object = readJsonObject(json, path);
  const type = keyTypeFromLotusJson(jsonField(object, 'Type'), `${path}.Type`);
  const privateKey = readJsonBytes(jsonField(object, 'PrivateKey'), `${path}.PrivateKey`);
  if (privateKey.length !== PRIVATE_KEY_LENGTH) {
    throw new JsonDecodeError(
      `${path}.PrivateKey: expected ${PRIVATE_KEY_LENGTH} bytes of base64, got ${privateKey.length} bytes`,
    );
  }
  return { type, privateKey };
}
