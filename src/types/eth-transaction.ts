/**
 * Ethereum transactions as Filecoin carries them (FIP-0055; lotus `chain/types/ethtypes/`
 * `eth_transactions.go`, `eth_1559_transactions.go`, `eth_legacy_155_transactions.go`,
 * `eth_legacy_homestead_transactions.go`): the RLP forms of EIP-1559, EIP-155 and homestead
 * transactions, their Filecoin message (InvokeContract, or EAM CreateExternal for a deployment, from
 * the sender's f410 address) and the layouts of their delegated (type 3) signature.
 *
 * Pure codecs, no hashing: keccak, signing and recovery live in `delegated-signature.ts`. Decoding is
 * strict (minimal integers, exact item counts, no trailing bytes), so `keccak(raw)` is also the hash
 * of the re-encoded transaction.
 */
import { RLP } from '@ethereumjs/rlp';
import { concatBytes, fromHex, toHex } from '../utils/bytes.js';
import { LedgerError } from '../utils/errors.js';
import { Address } from './address.js';
import { decodeCbor, encodeCbor } from './cbor.js';
import {
  addressFromEthAddressBytes,
  ETHEREUM_ADDRESS_MANAGER_ACTOR_ID,
  ethAddressBytesFromAddress,
  isEthAddress,
} from './eth-address.js';
import { MAX_INT64 } from './integers.js';
import type { Message } from './message.js';
import { type Signature, SignatureType } from './signature.js';
import type { SignedMessage } from './signed-message.js';

/** A transaction, or a delegated-signed message, that is not a valid Ethereum transaction here; the message says why. */
export class EthTransactionError extends LedgerError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_INVALID_ETH_TRANSACTION', message, options);
  }
}

/** The EVM actor's InvokeContract: the FRC-0042 method number of "InvokeEVM". */
export const INVOKE_CONTRACT_METHOD = 3844450837n;
/** The EAM's CreateExternal: what a deployment (a transaction without `to`) calls. */
export const CREATE_EXTERNAL_METHOD = 4n;
/** f010, the Ethereum Address Manager actor. */
export const EAM_ADDRESS = Address.newId(ETHEREUM_ADDRESS_MANAGER_ACTOR_ID);

/** Lotus decodes at most 2 MiB of RLP (`chain/types/ethtypes/rlp.go`): 1 MiB of init code and framing. */
export const MAX_ETH_TRANSACTION_LENGTH = 2 << 20;

export const EthTransactionType = { Legacy: 0, EIP1559: 2 } as const;

export interface EthTransaction {
  /** 0: legacy (homestead when `chainId` is null, else EIP-155); 2: EIP-1559. */
  type: 0 | 2;
  /** The chain id the signature commits to; null for a homestead transaction, which commits to none. */
  chainId: number | null;
  nonce: bigint;
  gasLimit: bigint;
  /** A legacy transaction's gasPrice is both fee fields. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** 20 bytes, or null for a contract deployment. */
  to: Uint8Array | null;
  value: bigint;
  input: Uint8Array;
  /** EIP-1559: the y parity, 0 or 1; homestead: 27 or 28; EIP-155: 2·chainId + 35 or + 36. */
  v: bigint;
  r: bigint;
  s: bigint;
}

const TX_TYPE_EIP2930 = 0x01;
const TX_TYPE_EIP1559 = 0x02;
/** First byte of a legacy delegated signature: Lotus's marker telling the two legacy forms apart. */
const HOMESTEAD_SIGNATURE_PREFIX = 0x01;
const EIP155_SIGNATURE_PREFIX = 0x02;
const EIP1559_SIGNATURE_LENGTH = 65;
const HOMESTEAD_SIGNATURE_LENGTH = 66;
const ETH_ADDRESS_LENGTH = 20;

const EIP1559_FIELDS = [
  'chainId',
  'nonce',
  'maxPriorityFeePerGas',
  'maxFeePerGas',
  'gasLimit',
  'to',
  'value',
  'input',
  'accessList',
  'v',
  'r',
  's',
] as const;
const LEGACY_FIELDS = ['nonce', 'gasPrice', 'gasLimit', 'to', 'value', 'input', 'v', 'r', 's'] as const;

const fail = (message: string): never => {
  throw new EthTransactionError(message);
};

// ---- integers ---------------------------------------------------------------------------------

function uintFromBytes(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${toHex(bytes)}`);
}

/** Minimal big-endian bytes (empty for zero), as RLP and Lotus's `formatBigInt` write integers. */
function minimalBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  const hex = value.toString(16);
  return fromHex(hex.length % 2 === 0 ? hex : `0${hex}`);
}

function bytes32(value: bigint, what: string): Uint8Array {
  const bytes = minimalBytes(value);
  if (bytes.length > 32) fail(`${what} does not fit in 32 bytes`);
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

function checkUint(value: bigint, what: string, maxBytes: number): bigint {
  if (typeof value !== 'bigint' || value < 0n || value >= 1n << BigInt(8 * maxBytes)) {
    fail(`${what} must be an unsigned integer of at most ${maxBytes} bytes, got ${String(value)}`);
  }
  return value;
}

// ---- RLP --------------------------------------------------------------------------------------

type RlpItem = Uint8Array | RlpItem[];

/**
 * The top-level items of the RLP list that is all of `bytes`, each checked to be a byte string
 * (or, for `accessList`, the empty list) before it is decoded: @ethereumjs/rlp decodes nested lists
 * recursively, copying each level, so a deeply nested item would cost time quadratic in its size.
 */
function rlpListItems(bytes: Uint8Array, what: string, names: readonly string[]): RlpItem[] {
  const head = bytes[0] as number;
  if (bytes.length === 0 || head < 0xc0) fail(`${what}: not an RLP list`);
  let offset = 1;
  let length = head - 0xc0;
  if (head > 0xf7) {
    const lengthOfLength = head - 0xf7;
    if (bytes.length < 1 + lengthOfLength) fail(`${what}: RLP list length is truncated`);
    if (bytes[1] === 0) fail(`${what}: RLP list length has leading zero bytes`);
    length = 0;
    for (let i = 1; i <= lengthOfLength && length <= bytes.length; i++) length = length * 256 + (bytes[i] as number);
    if (length < 56) fail(`${what}: RLP list of ${length} bytes must use the short form`);
    offset = 1 + lengthOfLength;
  }
  if (offset + length !== bytes.length) {
    fail(
      offset + length > bytes.length
        ? `${what}: RLP list of ${length} bytes is truncated (${bytes.length - offset} present)`
        : `${what}: ${bytes.length - offset - length} trailing bytes after the RLP list`,
    );
  }
  const items: RlpItem[] = [];
  let rest = bytes.subarray(offset);
  while (rest.length > 0) {
    const name = names[items.length];
    if (name === undefined) fail(`${what}: more than ${names.length} RLP items`);
    if ((rest[0] as number) >= 0xc0) {
      if (name !== 'accessList') fail(`${what}: ${name} is an RLP list, expected a byte string`);
      if (rest[0] !== 0xc0) fail(`${what}: the access list must be empty (access lists are not supported)`);
    }
    let decoded: { data: RlpItem; remainder: Uint8Array };
    try {
      decoded = RLP.decode(rest, true) as { data: RlpItem; remainder: Uint8Array };
    } catch (error) {
      throw new EthTransactionError(`${what}: ${name}: ${(error as Error).message}`, { cause: error });
    }
    items.push(decoded.data);
    rest = decoded.remainder;
  }
  if (items.length !== names.length) fail(`${what}: expected ${names.length} RLP items, got ${items.length}`);
  return items;
}

/** Reads the named items of a decoded transaction list. */
function itemReader(items: readonly RlpItem[], names: readonly string[], what: string) {
  const bytesOf = (name: string): Uint8Array => {
    const item = items[names.indexOf(name)] as RlpItem;
    if (Array.isArray(item)) fail(`${what}: ${name} is an RLP list, expected a byte string`);
    return item as Uint8Array;
  };
  const uint = (name: string, maxBytes: number): bigint => {
    const bytes = bytesOf(name);
    if (bytes[0] === 0) fail(`${what}: ${name} has leading zero bytes (integers are minimal big-endian)`);
    if (bytes.length > maxBytes) fail(`${what}: ${name} is ${bytes.length} bytes, more than ${maxBytes}`);
    return uintFromBytes(bytes);
  };
  const to = (): Uint8Array | null => {
    const bytes = bytesOf('to');
    if (bytes.length === 0) return null;
    if (bytes.length !== ETH_ADDRESS_LENGTH) fail(`${what}: to is ${bytes.length} bytes, expected 20 or empty`);
    return bytes;
  };
  const gasLimit = (): bigint => {
    const value = uint('gasLimit', 8);
    if (value > MAX_INT64) fail(`${what}: gasLimit ${value} exceeds a signed 64-bit integer`);
    return value;
  };
  return { bytesOf, uint, to, gasLimit };
}

// ---- chain ids and v --------------------------------------------------------------------------

function checkChainId(got: bigint, chainId: number, what: string): number {
  if (got !== BigInt(chainId)) fail(`${what}: chain id ${got} does not match this network's ${chainId}`);
  return chainId;
}

/** v of an EIP-155 signature: 2·chainId + 35 + yParity (EIP-155). */
function eip155V(chainId: number, yParity: bigint): bigint {
  return 2n * BigInt(chainId) + 35n + yParity;
}

/**
 * The chain id a legacy transaction's v commits to: null for homestead (27/28), else EIP-155's,
 * which must be this network's (Lotus `validateEIP155ChainId`).
 */
function legacyChainId(v: bigint, chainId: number, what: string): number | null {
  if (v === 27n || v === 28n) return null;
  if (v < 35n) fail(`${what}: v ${v} is out of range (27 or 28, or 2·chainId + 35 or + 36)`);
  return checkChainId((v - 35n) / 2n, chainId, what);
}

/** The three forms a signed transaction takes; a homestead transaction commits to no chain id. */
function form(tx: EthTransaction): 'eip1559' | 'homestead' | 'eip155' {
  if (tx.type === EthTransactionType.EIP1559) return 'eip1559';
  return tx.chainId === null ? 'homestead' : 'eip155';
}

/** The recovery id (0 or 1) a transaction's v encodes; what ecrecover takes as the 65th byte. */
function recoveryId(tx: EthTransaction): 0 | 1 {
  const zero = { eip1559: 0n, homestead: 27n, eip155: eip155V(tx.chainId ?? 0, 0n) }[form(tx)];
  const parity = tx.v - zero;
  if (parity !== 0n && parity !== 1n) fail(`v ${tx.v} is out of range: expected ${zero} or ${zero + 1n}`);
  return Number(parity) as 0 | 1;
}

/**
 * The 65-byte `r ‖ s ‖ recovery id` ecrecover takes (Lotus `ToVerifiableSignature`): v normalised
 * from 27/28 (homestead) or 2·chainId + 35/36 (EIP-155) to 0/1.
 */
export function ethTransactionVerifiableSignature(tx: EthTransaction): Uint8Array {
  return concatBytes(bytes32(tx.r, 'r'), bytes32(tx.s, 's'), Uint8Array.of(recoveryId(tx)));
}

// ---- encoding ---------------------------------------------------------------------------------

function checkEncodable(tx: EthTransaction): void {
  if (tx.type !== EthTransactionType.EIP1559 && tx.type !== EthTransactionType.Legacy) {
    fail(`transaction type ${String(tx.type)} is not supported (0 legacy, 2 EIP-1559)`);
  }
  if (tx.type === EthTransactionType.EIP1559 && tx.chainId === null) fail('an EIP-1559 transaction needs a chain id');
  if (tx.chainId !== null && (!Number.isSafeInteger(tx.chainId) || tx.chainId < 0)) {
    fail(`chain id must be a non-negative integer, got ${tx.chainId}`);
  }
  checkUint(tx.nonce, 'nonce', 8);
  checkUint(tx.gasLimit, 'gasLimit', 8);
  if (tx.gasLimit > MAX_INT64) fail(`gasLimit ${tx.gasLimit} exceeds a signed 64-bit integer`);
  checkUint(tx.maxFeePerGas, 'maxFeePerGas', 32);
  checkUint(tx.maxPriorityFeePerGas, 'maxPriorityFeePerGas', 32);
  checkUint(tx.value, 'value', 32);
  checkUint(tx.r, 'r', 32);
  checkUint(tx.s, 's', 32);
  checkUint(tx.v, 'v', 8);
  if (tx.to !== null && tx.to.length !== ETH_ADDRESS_LENGTH) fail(`to is ${tx.to.length} bytes, expected 20`);
}

/** The fields every signed form starts with, in RLP order. */
function payloadFields(tx: EthTransaction): RlpItem[] {
  const to = tx.to ?? new Uint8Array(0);
  if (tx.type === EthTransactionType.EIP1559) {
    return [
      minimalBytes(BigInt(tx.chainId as number)),
      minimalBytes(tx.nonce),
      minimalBytes(tx.maxPriorityFeePerGas),
      minimalBytes(tx.maxFeePerGas),
      minimalBytes(tx.gasLimit),
      to,
      minimalBytes(tx.value),
      tx.input,
      [],
    ];
  }
  return [
    minimalBytes(tx.nonce),
    minimalBytes(tx.maxFeePerGas),
    minimalBytes(tx.gasLimit),
    to,
    minimalBytes(tx.value),
    tx.input,
  ];
}

/**
 * What the sender signs (its keccak is the signing digest): `0x02 ‖ rlp([chainId … accessList])`
 * for EIP-1559, `rlp([nonce … input, chainId, 0, 0])` for EIP-155, `rlp([nonce … input])` for
 * homestead.
 */
export function ethTransactionSigningPayload(tx: EthTransaction): Uint8Array {
  checkEncodable(tx);
  const fields = payloadFields(tx);
  if (tx.type === EthTransactionType.EIP1559) return concatBytes(Uint8Array.of(TX_TYPE_EIP1559), RLP.encode(fields));
  if (tx.chainId === null) return RLP.encode(fields);
  return RLP.encode([...fields, minimalBytes(BigInt(tx.chainId)), new Uint8Array(0), new Uint8Array(0)]);
}

/** The signed (raw) transaction: `0x02 ‖ rlp([… accessList, v, r, s])`, or `rlp([… input, v, r, s])` for legacy. */
export function encodeSignedEthTransaction(tx: EthTransaction): Uint8Array {
  checkEncodable(tx);
  const fields = [...payloadFields(tx), minimalBytes(tx.v), minimalBytes(tx.r), minimalBytes(tx.s)];
  if (tx.type === EthTransactionType.EIP1559) return concatBytes(Uint8Array.of(TX_TYPE_EIP1559), RLP.encode(fields));
  return RLP.encode(fields);
}

// ---- decoding ---------------------------------------------------------------------------------

/**
 * A raw signed transaction (what `eth_sendRawTransaction` receives), as Lotus `ParseEthTransaction`
 * reads it: `0x02` EIP-1559 with an empty access list; a first byte above 0x7f a legacy
 * transaction, EIP-155 or homestead. Its chain id must be `chainId`. The signature is not checked.
 */
export function decodeSignedEthTransaction(raw: Uint8Array, chainId: number): EthTransaction {
  if (raw.length === 0) fail('empty transaction');
  if (raw.length > MAX_ETH_TRANSACTION_LENGTH) {
    fail(`transaction is ${raw.length} bytes, more than ${MAX_ETH_TRANSACTION_LENGTH}`);
  }
  const head = raw[0] as number;
  if (head === TX_TYPE_EIP2930) fail('EIP-2930 transaction is not supported');
  if (head === TX_TYPE_EIP1559) return decodeEip1559(raw.subarray(1), chainId);
  if (head > 0x7f) return decodeLegacy(raw, chainId);
  return fail(`unsupported transaction type 0x${head.toString(16).padStart(2, '0')} (0x02 EIP-1559 or legacy)`);
}

/** The fields every form has, read by name; v is read first by the caller, which checks it. */
function commonFields(read: ReturnType<typeof itemReader>, v: bigint) {
  return {
    nonce: read.uint('nonce', 8),
    gasLimit: read.gasLimit(),
    to: read.to(),
    value: read.uint('value', 32),
    input: read.bytesOf('input'),
    v,
    r: read.uint('r', 32),
    s: read.uint('s', 32),
  };
}

function decodeEip1559(body: Uint8Array, chainId: number): EthTransaction {
  const what = 'EIP-1559 transaction';
  const read = itemReader(rlpListItems(body, what, EIP1559_FIELDS), EIP1559_FIELDS, what);
  const v = read.uint('v', 1);
  if (v !== 0n && v !== 1n) fail(`${what}: v must be 0 or 1, got ${v}`);
  return {
    ...commonFields(read, v),
    type: EthTransactionType.EIP1559,
    chainId: checkChainId(read.uint('chainId', 8), chainId, what),
    maxPriorityFeePerGas: read.uint('maxPriorityFeePerGas', 32),
    maxFeePerGas: read.uint('maxFeePerGas', 32),
  };
}

function decodeLegacy(raw: Uint8Array, chainId: number): EthTransaction {
  const what = 'legacy transaction';
  const read = itemReader(rlpListItems(raw, what, LEGACY_FIELDS), LEGACY_FIELDS, what);
  const v = read.uint('v', 8);
  const gasPrice = read.uint('gasPrice', 32);
  return {
    ...commonFields(read, v),
    type: EthTransactionType.Legacy,
    chainId: legacyChainId(v, chainId, what),
    maxFeePerGas: gasPrice,
    maxPriorityFeePerGas: gasPrice,
  };
}

// ---- Filecoin messages ------------------------------------------------------------------------

/**
 * The unsigned Filecoin message of a transaction from `from` (Lotus `ToUnsignedFilecoinMessage`):
 * InvokeContract on `to` (f0 for a masked ID, else f410) with the input as a CBOR byte string, or
 * EAM CreateExternal for a deployment; a legacy transaction's gasPrice is both fee fields.
 */
export function ethTransactionToMessage(tx: EthTransaction, from: Address, chainId: number): Message {
  checkEncodable(tx);
  if (tx.chainId !== null) checkChainId(BigInt(tx.chainId), chainId, 'transaction');
  const deploy = tx.to === null;
  const gasPremium = tx.type === EthTransactionType.Legacy ? tx.maxFeePerGas : tx.maxPriorityFeePerGas;
  return {
    to: tx.to === null ? EAM_ADDRESS : addressFromEthAddressBytes(tx.to),
    from,
    nonce: tx.nonce,
    value: tx.value,
    gasLimit: tx.gasLimit,
    gasFeeCap: tx.maxFeePerGas,
    gasPremium,
    method: deploy ? CREATE_EXTERNAL_METHOD : INVOKE_CONTRACT_METHOD,
    params: tx.input.length === 0 ? new Uint8Array(0) : encodeCbor(tx.input),
  };
}

/**
 * The delegated signature of a signed transaction (Lotus `Signature()`): `r ‖ s ‖ v` (65 bytes)
 * for EIP-1559; `0x01 ‖ r ‖ s ‖ v` (66) for homestead; `0x02 ‖ r ‖ s ‖ v` with v minimal
 * big-endian (65 + its length) for EIP-155.
 */
export function ethTransactionSignature(tx: EthTransaction): Signature {
  checkEncodable(tx);
  recoveryId(tx);
  const rs = concatBytes(bytes32(tx.r, 'r'), bytes32(tx.s, 's'));
  const v = minimalBytes(tx.v);
  const data = {
    eip1559: () => concatBytes(rs, Uint8Array.of(Number(tx.v))),
    homestead: () => concatBytes(Uint8Array.of(HOMESTEAD_SIGNATURE_PREFIX), rs, v),
    eip155: () => concatBytes(Uint8Array.of(EIP155_SIGNATURE_PREFIX), rs, v),
  }[form(tx)]();
  return { type: SignatureType.Delegated, data };
}

/** The input and recipient a delegated-signed message carries (Lotus `getEthParamsAndRecipient`). */
function ethCallOfMessage(message: Message): { input: Uint8Array; to: Uint8Array | null } {
  let input: Uint8Array = new Uint8Array(0);
  if (message.params.length > 0) {
    let decoded: unknown;
    try {
      decoded = decodeCbor(message.params, 'Params');
    } catch (error) {
      throw new EthTransactionError(`params must be one CBOR byte string: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!(decoded instanceof Uint8Array)) fail('params must be one CBOR byte string');
    if ((decoded as Uint8Array).length === 0) fail('non-empty params encode an empty byte string');
    input = decoded as Uint8Array;
  }
  if (message.to.equals(EAM_ADDRESS)) {
    if (message.method !== CREATE_EXTERNAL_METHOD) {
      fail(`method ${message.method} on the EAM (f010): only CreateExternal (${CREATE_EXTERNAL_METHOD}) is allowed`);
    }
    return { input, to: null };
  }
  if (message.method !== INVOKE_CONTRACT_METHOD) {
    fail(
      `method ${message.method}: only InvokeContract (${INVOKE_CONTRACT_METHOD}), or CreateExternal (${CREATE_EXTERNAL_METHOD}) on f010, is allowed`,
    );
  }
  try {
    return { input, to: ethAddressBytesFromAddress(message.to) };
  } catch (error) {
    throw new EthTransactionError(`recipient: ${(error as Error).message}`, { cause: error });
  }
}

function checkMessageAmounts(message: Message): void {
  for (const [name, value] of [
    ['Value', message.value],
    ['GasFeeCap', message.gasFeeCap],
    ['GasPremium', message.gasPremium],
  ] as const) {
    if (value < 0n) fail(`${name} ${value} is negative`);
  }
  if (message.gasLimit < 0n) fail(`GasLimit ${message.gasLimit} is negative`);
}

/**
 * The unsigned EIP-1559 transaction of a message (Lotus `Eth1559TxArgsFromUnsignedFilecoinMessage`):
 * what a delegated key signs, as Lotus's message signer does (`chain/messagesigner` `SigningBytes`).
 * v, r and s are 0.
 */
export function eip1559TransactionFromMessage(message: Message, chainId: number): EthTransaction {
  checkMessageAmounts(message);
  const { input, to } = ethCallOfMessage(message);
  return {
    type: EthTransactionType.EIP1559,
    chainId,
    nonce: message.nonce,
    gasLimit: message.gasLimit,
    maxFeePerGas: message.gasFeeCap,
    maxPriorityFeePerGas: message.gasPremium,
    to,
    value: message.value,
    input,
    v: 0n,
    r: 0n,
    s: 0n,
  };
}

/** The minimal big-endian length of an EIP-155 v on this chain, plus prefix, r and s (Lotus `calcEIP155TxSignatureLen`). */
function eip155SignatureLength(chainId: number): number {
  return 1 + 64 + minimalBytes(eip155V(chainId, 1n)).length;
}

/**
 * The transaction a delegated-signed message is (Lotus `EthTransactionFromSignedFilecoinMessage`):
 * the sender must be an Ethereum f410 address, the params one CBOR byte string, the call
 * InvokeContract (or CreateExternal on f010); the signature's length and first byte select the form.
 * The result is not verified: `verifyDelegatedSignature` (delegated-signature.ts) does that.
 */
export function ethTransactionFromSignedMessage(signed: SignedMessage, chainId: number): EthTransaction {
  const { message, signature } = signed;
  if (signature.type !== SignatureType.Delegated) fail(`signature type ${signature.type} is not delegated (3)`);
  if (!isEthAddress(message.from)) fail(`sender ${message.from} is not an Ethereum account (f410f…)`);
  checkMessageAmounts(message);
  const { input, to } = ethCallOfMessage(message);
  const data = signature.data;
  const fields = { nonce: message.nonce, gasLimit: message.gasLimit, to, value: message.value, input };
  // r and s follow the legacy forms' one-byte prefix; v is the rest.
  const signatureFields = (offset: number) => ({
    r: uintFromBytes(data.subarray(offset, offset + 32)),
    s: uintFromBytes(data.subarray(offset + 32, offset + 64)),
    v: uintFromBytes(data.subarray(offset + 64)),
  });
  const legacy = { ...fields, type: EthTransactionType.Legacy, maxFeePerGas: message.gasFeeCap };
  let tx: EthTransaction;
  if (data.length === EIP1559_SIGNATURE_LENGTH) {
    tx = {
      ...fields,
      type: EthTransactionType.EIP1559,
      chainId,
      maxFeePerGas: message.gasFeeCap,
      maxPriorityFeePerGas: message.gasPremium,
      ...signatureFields(0),
    };
  } else if (data[0] === HOMESTEAD_SIGNATURE_PREFIX && data.length === HOMESTEAD_SIGNATURE_LENGTH) {
    tx = { ...legacy, chainId: null, maxPriorityFeePerGas: message.gasFeeCap, ...signatureFields(1) };
  } else if (data[0] === EIP155_SIGNATURE_PREFIX && data.length === eip155SignatureLength(chainId)) {
    const { r, s, v } = signatureFields(1);
    const txChainId = legacyChainId(v, chainId, 'EIP-155 signature');
    if (txChainId === null) fail(`EIP-155 signature: v ${v} is a homestead value`);
    tx = { ...legacy, chainId: txChainId, maxPriorityFeePerGas: message.gasFeeCap, r, s, v };
  } else {
    return fail(
      `unsupported delegated signature of ${data.length} bytes: expected 65 (EIP-1559), 66 starting 0x01 (homestead) or ${eip155SignatureLength(chainId)} starting 0x02 (EIP-155)`,
    );
  }
  recoveryId(tx);
  return tx;
}
