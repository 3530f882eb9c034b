/**
 * Method parameters given as JSON, encoded to the CBOR the actor reads: what `lotus send
 * --params-json` does (Lotus `DecodeTypedParamsFromJSON`: the recipient actor's parameter type for
 * the method, filled from the JSON by Go's encoding/json, then CBOR-marshalled). The JSON uses the
 * Go type's field names, matched regardless of case as Go does; values are written as Lotus JSON
 * writes them: addresses and token amounts as strings, integers as numbers, bytes as base64 (or
 * null), CIDs as `{"/": "…"}`. A field left out takes Go's zero value, except an address or a
 * CID, which has none. Unlike Go, a field the type does not have is an error rather than ignored:
 * a misspelt field would otherwise send its zero value. The types and their fields are the actors'
 * own `declareStruct` declarations; this module only adds the CLI's readers for each field kind.
 */
import { isLosslessNumber, parse } from 'lossless-json';
import { CID } from 'multiformats/cid';
import type { ActorName } from '../../state/index.js';
import { Address, addressKind, encodeCbor, kinds, type StructField } from '../../types/index.js';
import { fromBase64 } from '../../utils/bytes.js';
import { LedgerError } from '../../utils/errors.js';
import { AccountMethod, InitMethod, MinerMethod, MultisigMethod, PowerMethod } from '../methods.js';
import { authenticateMessageParams } from './account.js';
import { addressListKind, bigInt, bytesListKind } from './cbor.js';
import { execParams } from './method-params.js';
import { changeWorkerAddressParams, withdrawBalanceParams } from './miner/actor.js';
import {
  addSignerParams,
  changeNumApprovalsThresholdParams,
  lockBalanceParams,
  proposeParams,
  removeSignerParams,
  swapSignerParams,
  txnIdParams,
} from './multisig.js';
import { createMinerParams } from './power.js';

type Kind = 'address' | 'tokenAmount' | 'uint64' | 'int64' | 'bytes' | 'bool' | 'cid' | 'addresses' | 'bytesList';

/** How each field kind of the declared params is read from `--params-json`. */
const JSON_KINDS = new Map<unknown, Kind>([
  [addressKind, 'address'],
  [kinds.bigInt, 'tokenAmount'],
  [kinds.uint64, 'uint64'],
  [kinds.int64, 'int64'],
  [kinds.bytes, 'bytes'],
  [kinds.bool, 'bool'],
  [kinds.cid, 'cid'],
  [addressListKind, 'addresses'],
  [bytesListKind, 'bytesList'],
]);

/** A declared params struct: its Go type's name, its fields in CBOR tuple order and its codecs. */
interface ParamsType {
  readonly name: string;
  readonly fields: readonly StructField[];
  decode(bytes: Uint8Array): unknown;
  toLotusJson(value: unknown): unknown;
}

/** The methods a user sends that take parameters, per actor (go-state-types' parameter types). */
const PARAMS_TYPES: Partial<Record<ActorName, ReadonlyMap<bigint, ParamsType>>> = {
  account: new Map<bigint, ParamsType>([[AccountMethod.AuthenticateMessage, authenticateMessageParams]]),
  init: new Map<bigint, ParamsType>([[InitMethod.Exec, execParams]]),
  storagepower: new Map<bigint, ParamsType>([
    [PowerMethod.CreateMiner, createMinerParams],
    [PowerMethod.CreateMinerExported, createMinerParams],
  ]),
  storageminer: new Map<bigint, ParamsType>([
    [MinerMethod.ChangeWorkerAddress, changeWorkerAddressParams],
    [MinerMethod.ChangeWorkerAddressExported, changeWorkerAddressParams],
    [MinerMethod.WithdrawBalance, withdrawBalanceParams],
    [MinerMethod.WithdrawBalanceExported, withdrawBalanceParams],
  ]),
  multisig: new Map<bigint, ParamsType>([
    [MultisigMethod.Propose, proposeParams],
    [MultisigMethod.Approve, txnIdParams],
    [MultisigMethod.Cancel, txnIdParams],
    [MultisigMethod.AddSigner, addSignerParams],
    [MultisigMethod.RemoveSigner, removeSignerParams],
    [MultisigMethod.SwapSigner, swapSignerParams],
    [MultisigMethod.ChangeNumApprovalsThreshold, changeNumApprovalsThresholdParams],
    [MultisigMethod.LockBalance, lockBalanceParams],
  ]),
};

function jsonKind(type: ParamsType, field: StructField): Kind {
  const kind = JSON_KINDS.get(field.kind);
  if (kind === undefined) throw new Error(`${type.name}.${field.json}: no --params-json reader for this field kind`);
  return kind;
}

export class ParamsJsonError extends LedgerError {
  constructor(message: string) {
    super('ERR_PARAMS_JSON', message);
  }
}

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

function paramsTypeOf(actor: ActorName, method: bigint): ParamsType {
  const type = PARAMS_TYPES[actor]?.get(method);
  if (type === undefined) {
    throw new ParamsJsonError(`method ${method} of the ${actor} actor takes no JSON parameters that this node knows`);
  }
  return type;
}

/**
 * Lotus `StateDecodeParams`: the CBOR parameters of `method` on an actor of type `actor` as the
 * Lotus JSON of their Go type (what `encodeParamsFromJson` reads back).
 */
export function decodeParamsToJson(actor: ActorName, method: bigint, params: Uint8Array): unknown {
  const type = paramsTypeOf(actor, method);
  let value: unknown;
  try {
    value = type.decode(params);
  } catch (error) {
    throw new ParamsJsonError(`the params are not a ${type.name}: ${(error as Error).message}`);
  }
  return type.toLotusJson(value);
}

/** The CBOR parameters of `method` on an actor of type `actor`, from their JSON text. */
export function encodeParamsFromJson(actor: ActorName, method: bigint, json: string): Uint8Array {
  const type = paramsTypeOf(actor, method);
  let value: unknown;
  try {
    // Numbers stay as written (LosslessNumber): beyond 2^53 a double would round them.
    value = parse(json);
  } catch (error) {
    throw new ParamsJsonError(`--params-json is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ParamsJsonError(`${type.name}: expected a JSON object`);
  }
  const given = new Map(Object.entries(value).map(([key, field]) => [key.toLowerCase(), { key, field }]));
  const tuple = type.fields.map((field) => {
    const entry = given.get(field.json.toLowerCase());
    given.delete(field.json.toLowerCase());
    return fieldValue(entry?.field, jsonKind(type, field), `${type.name}.${field.json}`);
  });
  const unknown = [...given.values()].map(({ key }) => key);
  if (unknown.length > 0) {
    throw new ParamsJsonError(
      `${type.name} has no field ${unknown.join(', ')} (its fields: ${type.fields.map((field) => field.json).join(', ')})`,
    );
  }
  return encodeCbor(tuple);
}

function fieldValue(value: unknown, kind: Kind, path: string): unknown {
  switch (kind) {
    case 'address':
      return readAddress(value, path).bytes;
    case 'tokenAmount':
      return bigInt(readTokenAmount(value, path));
    case 'uint64':
      return readInteger(value, path, 0n, UINT64_MAX);
    case 'int64':
      return readInteger(value, path, INT64_MIN, INT64_MAX);
    case 'bytes':
      return readBytes(value, path);
    case 'bool':
      if (value === undefined) return false;
      if (typeof value !== 'boolean') throw new ParamsJsonError(`${path}: expected true or false`);
      return value;
    case 'cid':
      return readCid(value, path);
    case 'addresses':
      return readList(value, path).map((item, i) => readAddress(item, `${path}[${i}]`).bytes);
    case 'bytesList':
      return readList(value, path).map((item, i) => readBytes(item, `${path}[${i}]`));
  }
}

function readAddress(value: unknown, path: string): Address {
  if (typeof value !== 'string') throw new ParamsJsonError(`${path}: expected an address string such as "f01234"`);
  try {
    return Address.fromString(value);
  } catch (error) {
    throw new ParamsJsonError(`${path}: ${(error as Error).message}`);
  }
}

function readTokenAmount(value: unknown, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new ParamsJsonError(`${path}: expected an attoFIL amount as a decimal string such as "1000"`);
}

function readInteger(value: unknown, path: string, min: bigint, max: bigint): bigint {
  if (value === undefined) return 0n;
  if (!isLosslessNumber(value) || !/^-?\d+$/.test(value.value)) {
    throw new ParamsJsonError(`${path}: expected an integer number`);
  }
  const integer = BigInt(value.value);
  if (integer < min || integer > max) throw new ParamsJsonError(`${path}: ${integer} is out of range`);
  return integer;
}

function readBytes(value: unknown, path: string): Uint8Array {
  if (value === undefined || value === null) return new Uint8Array(0);
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
    throw new ParamsJsonError(`${path}: expected base64 bytes (or null)`);
  }
  return fromBase64(value);
}

function readCid(value: unknown, path: string): CID {
  const link = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['/'] : undefined;
  if (typeof link !== 'string') throw new ParamsJsonError(`${path}: expected a CID as {"/": "bafy…"}`);
  try {
    return CID.parse(link);
  } catch (error) {
    throw new ParamsJsonError(`${path}: ${(error as Error).message}`);
  }
}

function readList(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ParamsJsonError(`${path}: expected a JSON array`);
  return value;
}
