/** Wallet methods, with Lotus's parameters and permissions (`lotus:api/api_full.go` `perm:` tags). */

import { Address } from '../../types/index.js';
import { verifySignature } from '../../wallet/index.js';
import { declareMethod } from '../method.js';
import {
  addressParam,
  bytesParam,
  keyInfoParam,
  keyTypeParam,
  messageParam,
  nullableSignatureParam,
  stringParam,
} from '../params.js';
import {
  addressListResult,
  addressResult,
  booleanResult,
  keyInfoResult,
  signatureResult,
  signedMessageResult,
  voidResult,
} from '../results.js';

export const walletNew = declareMethod({
  name: 'WalletNew',
  description:
    'Generates a key of the given type (secp256k1, bls or delegated — an Ethereum key; the integers 1, 2 and 3 are accepted as in Lotus) and returns its address. The first key becomes the default.',
  permission: 'write',
  params: [keyTypeParam('keyType', '"secp256k1", "bls" or "delegated"')],
  result: addressResult('the new address (f1/t1 secp256k1, f3/t3 BLS, f410f/t410f delegated)'),
  handler: ([keyType], { wallet }) => wallet.newKey(keyType),
});

export const walletHas = declareMethod({
  name: 'WalletHas',
  description: 'Tells whether the wallet holds the key of an address.',
  permission: 'write',
  params: [addressParam('address', 'the address to look for')],
  result: booleanResult('true when the wallet holds its key'),
  handler: ([address], { wallet }) => wallet.has(address),
});

export const walletList = declareMethod({
  name: 'WalletList',
  description: 'Lists the addresses in the wallet, sorted.',
  permission: 'write',
  params: [],
  result: addressListResult('the addresses; [] when the wallet is empty'),
  handler: (_params, { wallet }) => wallet.list(),
});

export const walletDefaultAddress = declareMethod({
  name: 'WalletDefaultAddress',
  description: 'Returns the default address; an error when none is set.',
  permission: 'write',
  params: [],
  result: addressResult('the default address'),
  handler: (_params, { wallet }) => wallet.defaultAddress(),
});

export const walletSetDefault = declareMethod({
  name: 'WalletSetDefault',
  description: 'Makes an address of the wallet the default one.',
  permission: 'write',
  params: [addressParam('address', 'an address whose key the wallet holds')],
  result: voidResult,
  handler: ([address], { wallet }) => wallet.setDefault(address),
});

export const walletSign = declareMethod({
  name: 'WalletSign',
  description:
    'Signs raw bytes with the key of an address: secp256k1 signs their blake2b-256 digest, BLS the bytes themselves, delegated their keccak-256 digest. To sign a chain message, sign its CID bytes (or use WalletSignMessage).',
  permission: 'sign',
  params: [addressParam('address', 'the signing address'), bytesParam('data', 'the bytes to sign, base64')],
  result: signatureResult('the signature'),
  handler: ([address, data], { wallet }) => wallet.sign(address, data),
});

export const walletSignMessage = declareMethod({
  name: 'WalletSignMessage',
  description:
    "Signs a message with the key of an address; nonce and gas are used as given. secp256k1 and BLS keys sign its CID bytes; a delegated key signs the EIP-1559 transaction the message converts to (InvokeContract or CreateExternal from its f410 address), with the network's chain id.",
  permission: 'sign',
  params: [addressParam('address', 'the signing address'), messageParam('message', 'the unsigned message')],
  result: signedMessageResult('the message with its signature'),
  handler: ([address, message], { wallet }) => wallet.signMessage(address, message),
});

export const walletVerify = declareMethod({
  name: 'WalletVerify',
  description:
    'Checks a signature over raw bytes against an address (which need not be in the wallet). A wrong or malformed signature is false, not an error.',
  permission: 'read',
  params: [
    addressParam('address', 'the f1, f3 or f410 address that should have signed'),
    bytesParam('data', 'the signed bytes, base64'),
    nullableSignatureParam('signature', 'the signature to check'),
  ],
  result: booleanResult('true when the signature is valid'),
  handler: ([address, data, signature]) => signature !== null && verifySignature(address, data, signature),
});

export const walletValidateAddress = declareMethod({
  name: 'WalletValidateAddress',
  description: 'Parses an address string and returns it in canonical form.',
  permission: 'read',
  params: [stringParam('address', 'the address string to check')],
  result: addressResult('the address, with this network’s prefix'),
  handler: ([text]) => Address.fromString(text),
});

export const walletExport = declareMethod({
  name: 'WalletExport',
  description: 'Returns the private key of an address as a Lotus KeyInfo.',
  permission: 'admin',
  params: [addressParam('address', 'an address of the wallet')],
  result: keyInfoResult('the KeyInfo'),
  handler: ([address], { wallet }) => wallet.export(address),
});

export const walletImport = declareMethod({
  name: 'WalletImport',
  description: 'Stores a private key given as a Lotus KeyInfo and returns its address.',
  permission: 'admin',
  params: [keyInfoParam('keyInfo', '{"Type": "secp256k1" | "bls" | "delegated", "PrivateKey": base64}')],
  result: addressResult('the address of the imported key'),
  handler: ([keyInfo], { wallet }) => wallet.import(keyInfo),
});

export const walletDelete = declareMethod({
  name: 'WalletDelete',
  description:
    'Removes an address from the wallet. The key is kept in the keystore as trash-<address> until deleted by hand; unknown addresses are not an error.',
  permission: 'admin',
  params: [addressParam('address', 'the address to remove')],
  result: voidResult,
  handler: ([address], { wallet }) => wallet.delete(address),
});

export const walletMethods = [
  walletNew,
  walletHas,
  walletList,
  walletDefaultAddress,
  walletSetDefault,
  walletSign,
  walletSignMessage,
  walletVerify,
  walletValidateAddress,
  walletExport,
  walletImport,
  walletDelete,
];
