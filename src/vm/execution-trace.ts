/**
 * Execution traces and the results built from them, in Lotus's current shapes (Lotus ≥ v1.33.1,
 * filecoin-project/lotus `chain/types/execresult.go`, `api/api_full.go`): an ExecutionTrace per
 * call with its gas charges and subcalls, MsgGasCost, InvocResult (StateReplay, StateCall) and
 * ComputeStateOutput (StateCompute), each with a Lotus JSON codec in both directions.
 *
 * Shapes of fields we do not produce: `Logs` and `IpldOps` are always empty, so they are omitted
 * from JSON as Lotus omits empty ones; `tt` (time taken) is 0 because gas here is not timed.
 */
import type { CID } from 'multiformats/cid';
import { JsonDecodeError } from '../types/errors.js';
import {
  type Actor,
  type ActorJson,
  type Address,
  actorFromLotusJson,
  actorToLotusJson,
  addressFromLotusJson,
  addressToLotusJson,
  bigIntFromLotusJson,
  bigIntToLotusJson,
  bytesToLotusJson,
  type CidJson,
  cidToLotusJson,
  type JsonInteger,
  jsonField,
  type Message,
  type MessageJson,
  type MessageReceipt,
  type MessageReceiptJson,
  messageFromLotusJson,
  messageReceiptFromLotusJson,
  messageReceiptToLotusJson,
  messageToLotusJson,
  readJsonArray,
  readJsonBytes,
  readJsonCid,
  readJsonInt64,
  readJsonNullable,
  readJsonObject,
  readJsonUint64,
  toJsonInteger,
} from '../types/index.js';
import type { GasOutputs } from './gas/gas-outputs.js';

/** IPLD codecs of params and return values in traces. */
export const IpldCodec = { None: 0, Cbor: 0x51, Raw: 0x55, DagCbor: 0x71 } as const;

export interface MessageTrace {
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
  readonly method: bigint;
  readonly params: Uint8Array;
  readonly paramsCodec: number;
  readonly gasLimit: bigint;
  readonly readOnly: boolean;
}

export interface ReturnTrace {
  readonly exitCode: number;
  readonly return: Uint8Array;
  readonly returnCodec: number;
}

export interface GasTrace {
  readonly name: string;
  readonly totalGas: bigint;
  readonly computeGas: bigint;
  readonly storageGas: bigint;
}

export interface ActorTrace {
  readonly id: bigint;
  /** The actor as it was when the call began. */
  readonly state: Actor;
}

export interface ExecutionTrace {
  readonly msg: MessageTrace;
  readonly msgRct: ReturnTrace;
  readonly invokedActor: ActorTrace | null;
  readonly gasCharges: readonly GasTrace[];
  readonly subcalls: readonly ExecutionTrace[];
}

/** Lotus MsgGasCost; all zero (and `message` null) for implicit messages. */
export interface MsgGasCost {
  readonly message: CID | null;
  readonly gasUsed: bigint;
  readonly baseFeeBurn: bigint;
  readonly overEstimationBurn: bigint;
  readonly minerPenalty: bigint;
  readonly minerTip: bigint;
  readonly refund: bigint;
  readonly totalCost: bigint;
}

export interface InvocResult {
  readonly msgCid: CID;
  readonly msg: Message;
  readonly msgRct: MessageReceipt;
  readonly gasCost: MsgGasCost;
  readonly executionTrace: ExecutionTrace;
  /** The failure's description, "" on success. */
  readonly error: string;
  /** Wall-clock nanoseconds the message took. */
  readonly duration: bigint;
}

export interface ComputeStateOutput {
  readonly root: CID;
  readonly trace: readonly InvocResult[];
}

export const ZERO_GAS_COST: MsgGasCost = {
  message: null,
  gasUsed: 0n,
  baseFeeBurn: 0n,
  overEstimationBurn: 0n,
  minerPenalty: 0n,
  minerTip: 0n,
  refund: 0n,
  totalCost: 0n,
};

/** Lotus `MakeMsgGasCost`: the fees an explicit message paid. */
export function makeMsgGasCost(messageCid: CID, gasUsed: bigint, outputs: GasOutputs): MsgGasCost {
  return {
    message: messageCid,
    gasUsed,
    baseFeeBurn: outputs.baseFeeBurn,
    overEstimationBurn: outputs.overEstimationBurn,
    minerPenalty: outputs.minerPenalty,
    minerTip: outputs.minerTip,
    refund: outputs.refund,
    totalCost: outputs.baseFeeBurn + outputs.overEstimationBurn + outputs.minerTip,
  };
}

// ---------------------------------------------------------------------------------------------
// Lotus JSON

export interface MessageTraceJson {
  From: string;
  To: string;
  Value: string;
  Method: JsonInteger;
  Params: string | null;
  ParamsCodec: JsonInteger;
  GasLimit: JsonInteger;
  ReadOnly: boolean;
}

export interface ReturnTraceJson {
  ExitCode: number;
  Return: string | null;
  ReturnCodec: JsonInteger;
}

export interface GasTraceJson {
  Name: string;
  tg: JsonInteger;
  cg: JsonInteger;
  sg: JsonInteger;
  tt: number;
}

export interface ActorTraceJson {
  Id: JsonInteger;
  State: ActorJson;
}

export interface ExecutionTraceJson {
  Msg: MessageTraceJson;
  MsgRct: ReturnTraceJson;
  InvokedActor?: ActorTraceJson;
  GasCharges: GasTraceJson[] | null;
  Subcalls: ExecutionTraceJson[] | null;
}

export interface MsgGasCostJson {
  Message: CidJson | null;
  GasUsed: string;
  BaseFeeBurn: string;
  OverEstimationBurn: string;
  MinerPenalty: string;
  MinerTip: string;
  Refund: string;
  TotalCost: string;
}

export interface InvocResultJson {
  MsgCid: CidJson;
  Msg: MessageJson;
  MsgRct: MessageReceiptJson;
  GasCost: MsgGasCostJson;
  ExecutionTrace: ExecutionTraceJson;
  Error: string;
  Duration: JsonInteger;
}

export interface ComputeStateOutputJson {
  Root: CidJson;
  Trace: InvocResultJson[] | null;
}

export function executionTraceToLotusJson(trace: ExecutionTrace): ExecutionTraceJson {
  const { msg, msgRct } = trace;
  const json: ExecutionTraceJson = {
    Msg: {
      From: addressToLotusJson(msg.from),
      To: addressToLotusJson(msg.to),
      Value: bigIntToLotusJson(msg.value),
      Method: toJsonInteger(msg.method),
      Params: bytesToLotusJson(msg.params),
      ParamsCodec: msg.paramsCodec,
      GasLimit: toJsonInteger(msg.gasLimit),
      ReadOnly: msg.readOnly,
    },
    MsgRct: { ExitCode: msgRct.exitCode, Return: bytesToLotusJson(msgRct.return), ReturnCodec: msgRct.returnCodec },
    GasCharges:
      trace.gasCharges.length === 0
        ? null
        : trace.gasCharges.map((charge) => ({
            Name: charge.name,
            tg: toJsonInteger(charge.totalGas),
            cg: toJsonInteger(charge.computeGas),
            sg: toJsonInteger(charge.storageGas),
            tt: 0,
          })),
    Subcalls: trace.subcalls.length === 0 ? null : trace.subcalls.map(executionTraceToLotusJson),
  };
  if (trace.invokedActor !== null) {
    json.InvokedActor = {
      Id: toJsonInteger(trace.invokedActor.id),
      State: actorToLotusJson(trace.invokedActor.state),
    };
  }
  return json;
}

function readJsonBoolean(value: unknown, path: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new JsonDecodeError(`${path}: expected a boolean`);
  return value;
}

function readJsonString(value: unknown, path: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new JsonDecodeError(`${path}: expected a string`);
  return value;
}

function readJsonNumber(value: unknown, path: string): number {
  return Number(readJsonUint64(value, path));
}

export function executionTraceFromLotusJson(json: unknown, path = 'ExecutionTrace'): ExecutionTrace {
  const object = readJsonObject(json, path);
  const msg = readJsonObject(jsonField(object, 'Msg'), `${path}.Msg`);
  const rct = readJsonObject(jsonField(object, 'MsgRct'), `${path}.MsgRct`);
  return {
    msg: {
      from: addressFromLotusJson(jsonField(msg, 'From'), `${path}.Msg.From`),
      to: addressFromLotusJson(jsonField(msg, 'To'), `${path}.Msg.To`),
      value: bigIntFromLotusJson(jsonField(msg, 'Value'), `${path}.Msg.Value`),
      method: readJsonUint64(jsonField(msg, 'Method'), `${path}.Msg.Method`),
      params: readJsonBytes(jsonField(msg, 'Params'), `${path}.Msg.Params`),
      paramsCodec: readJsonNumber(jsonField(msg, 'ParamsCodec'), `${path}.Msg.ParamsCodec`),
      gasLimit: readJsonUint64(jsonField(msg, 'GasLimit'), `${path}.Msg.GasLimit`),
      readOnly: readJsonBoolean(jsonField(msg, 'ReadOnly'), `${path}.Msg.ReadOnly`),
    },
    msgRct: {
      exitCode: Number(readJsonInt64(jsonField(rct, 'ExitCode'), `${path}.MsgRct.ExitCode`)),
      return: readJsonBytes(jsonField(rct, 'Return'), `${path}.MsgRct.Return`),
      returnCodec: readJsonNumber(jsonField(rct, 'ReturnCodec'), `${path}.MsgRct.ReturnCodec`),
    },
    invokedActor: readJsonNullable(jsonField(object, 'InvokedActor'), `${path}.InvokedActor`, (value, at) => {
      const actor = readJsonObject(value, at);
      return {
        id: readJsonUint64(jsonField(actor, 'Id'), `${at}.Id`),
        state: actorFromLotusJson(jsonField(actor, 'State'), `${at}.State`),
      };
    }),
    gasCharges: readJsonArray(jsonField(object, 'GasCharges'), `${path}.GasCharges`, (value, at) => {
      const charge = readJsonObject(value, at);
      return {
        name: readJsonString(jsonField(charge, 'Name'), `${at}.Name`),
        totalGas: readJsonInt64(jsonField(charge, 'tg'), `${at}.tg`),
        computeGas: readJsonInt64(jsonField(charge, 'cg'), `${at}.cg`),
        storageGas: readJsonInt64(jsonField(charge, 'sg'), `${at}.sg`),
      };
    }),
    subcalls: readJsonArray(jsonField(object, 'Subcalls'), `${path}.Subcalls`, executionTraceFromLotusJson),
  };
}

export function msgGasCostToLotusJson(cost: MsgGasCost): MsgGasCostJson {
  return {
    Message: cost.message === null ? null : cidToLotusJson(cost.message),
    GasUsed: bigIntToLotusJson(cost.gasUsed),
    BaseFeeBurn: bigIntToLotusJson(cost.baseFeeBurn),
    OverEstimationBurn: bigIntToLotusJson(cost.overEstimationBurn),
    MinerPenalty: bigIntToLotusJson(cost.minerPenalty),
    MinerTip: bigIntToLotusJson(cost.minerTip),
    Refund: bigIntToLotusJson(cost.refund),
    TotalCost: bigIntToLotusJson(cost.totalCost),
  };
}

export function msgGasCostFromLotusJson(json: unknown, path = 'MsgGasCost'): MsgGasCost {
  const object = readJsonObject(json, path);
  const amount = (name: string) => bigIntFromLotusJson(jsonField(object, name), `${path}.${name}`);
  return {
    message: readJsonNullable(jsonField(object, 'Message'), `${path}.Message`, readJsonCid),
    gasUsed: amount('GasUsed'),
    baseFeeBurn: amount('BaseFeeBurn'),
    overEstimationBurn: amount('OverEstimationBurn'),
    minerPenalty: amount('MinerPenalty'),
    minerTip: amount('MinerTip'),
    refund: amount('Refund'),
    totalCost: amount('TotalCost'),
  };
}

export function invocResultToLotusJson(result: InvocResult): InvocResultJson {
  return {
    MsgCid: cidToLotusJson(result.msgCid),
    Msg: messageToLotusJson(result.msg),
    MsgRct: messageReceiptToLotusJson(result.msgRct),
    GasCost: msgGasCostToLotusJson(result.gasCost),
    ExecutionTrace: executionTraceToLotusJson(result.executionTrace),
    Error: result.error,
    Duration: toJsonInteger(result.duration),
  };
}

export function invocResultFromLotusJson(json: unknown, path = 'InvocResult'): InvocResult {
  const object = readJsonObject(json, path);
  return {
    msgCid: readJsonCid(jsonField(object, 'MsgCid'), `${path}.MsgCid`),
    msg: messageFromLotusJson(jsonField(object, 'Msg'), `${path}.Msg`),
    msgRct: messageReceiptFromLotusJson(jsonField(object, 'MsgRct'), `${path}.MsgRct`, 1),
    gasCost: msgGasCostFromLotusJson(jsonField(object, 'GasCost'), `${path}.GasCost`),
    executionTrace: executionTraceFromLotusJson(jsonField(object, 'ExecutionTrace'), `${path}.ExecutionTrace`),
    error: readJsonString(jsonField(object, 'Error'), `${path}.Error`),
    duration: readJsonInt64(jsonField(object, 'Duration'), `${path}.Duration`),
  };
}

export function computeStateOutputToLotusJson(output: ComputeStateOutput): ComputeStateOutputJson {
  return {
    Root: cidToLotusJson(output.root),
    Trace: output.trace.length === 0 ? null : output.trace.map(invocResultToLotusJson),
  };
}

export function computeStateOutputFromLotusJson(json: unknown, path = 'ComputeStateOutput'): ComputeStateOutput {
  const object = readJsonObject(json, path);
  return {
    root: readJsonCid(jsonField(object, 'Root'), `${path}.Root`),
    trace: readJsonArray(jsonField(object, 'Trace'), `${path}.Trace`, invocResultFromLotusJson),
  };
}
