/**
 * State methods that run or read messages, with Lotus's parameters, nulls and permissions
 * (filecoin-project/lotus `api/api_full.go`, `node/impl/full/state.go`): StateCall (a message
 * applied without being kept), StateListMessages (the messages to or from an address, walking back
 * from a tipset), and StateDecodeParams / StateEncodeParams (builtin actors' method parameters
 * between CBOR and the Lotus JSON of their Go types; StateEncodeParams is v1 only, as in Lotus).
 */
import type { CID } from 'multiformats/cid';
import { assertStateAvailable } from '../../chain/snapshot/index.js';
import { callOnTipSet } from '../../chain/state-call.js';
import { actorNameOf } from '../../state/index.js';
import {
  type Address,
  addressFromLotusJson,
  type CidJson,
  cidToLotusJson,
  jsonField,
  readJsonObject,
  stringifyJsonLossless,
  type TipSet,
} from '../../types/index.js';
import { nextTurn } from '../../utils/abort.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import { decodeParamsToJson, encodeParamsFromJson, type InvocResult, invocResultToLotusJson } from '../../vm/index.js';
import { cidParam, epochParam, tipSetKeyParam } from '../chain-codecs.js';
import type { ChainContext } from '../context.js';
import type { ParamDeclaration, ResultDeclaration } from '../method.js';
import { addressParam, bytesParam, messageParam, uint64Param } from '../params.js';
import { bytesResult, jsonResult } from '../results.js';
import { addressSchema, cidSchema } from '../schemas.js';
import { declareChainMethod } from './chain.js';
import { actorAt, stateTreeOf } from './state.js';
import { invocResultSchema } from './state-messages.js';

export const stateCall = declareChainMethod({
  name: 'StateCall',
  description:
    "Applies a message on a tipset's parent state at the tipset's epoch, after that tipset's messages from the same sender, and keeps nothing: no signature, fee or nonce checks (the sender's nonce is used, and the gas limit is Lotus's implicit-call limit 2^62-1); the sender must exist. A failing call answers its InvocResult with the exit code and Error, not an error; GasCost is zero.",
  permission: 'read',
  expensive: true,
  params: [
    messageParam('message', 'the message; nonce and gas fields are not checked'),
    tipSetKeyParam('tsk', 'the tipset; null or [] for the head'),
  ],
  result: {
    name: 'invocResult',
    description: 'MsgCid, Msg, MsgRct, GasCost, ExecutionTrace, Error, Duration',
    schema: invocResultSchema,
    encode: (result: InvocResult) => invocResultToLotusJson(result),
  },
  handler: ([message, key], { chain }) => {
    const tipSet = chain.store.tipSetOrHead(key);
    assertStateAvailable(chain.store, tipSet);
    return callOnTipSet(chain.store, tipSet, message);
  },
});

/** Lotus `api.MessageMatch`: an unset address matches every message. */
interface MessageMatch {
  readonly to: Address | undefined;
  readonly from: Address | undefined;
}

/** An address field Go leaves undefined when absent, null or "". */
function optionalAddress(json: unknown, path: string): Address | undefined {
  return json === undefined || json === null || json === '' ? undefined : addressFromLotusJson(json, path);
}

const messageMatchParam: ParamDeclaration<MessageMatch, { To?: string; From?: string } | null> = {
  name: 'match',
  description: 'MessageMatch {To, From}: at least one of them',
  schema: { title: 'MessageMatch', type: 'object', properties: { To: addressSchema, From: addressSchema } },
  decode: (json, path) => {
    if (json === null) return { to: undefined, from: undefined };
    const object = readJsonObject(json, path);
    return {
      to: optionalAddress(jsonField(object, 'To'), `${path}.To`),
      from: optionalAddress(jsonField(object, 'From'), `${path}.From`),
    };
  },
};

/** Lotus StateListMessages: whether the address the filter checks first has an actor at the start. */
function filterAddressExists(chain: ChainContext, match: MessageMatch, tipSet: TipSet): boolean {
  const address = match.to ?? match.from;
  return address !== undefined && actorAt(stateTreeOf(chain, tipSet.key), address) !== undefined;
}

/** How many tipsets StateListMessages reads before it hands the event loop back and checks its signal. */
const LIST_TIPSETS_PER_TURN = 256;

export const stateListMessages = declareChainMethod({
  name: 'StateListMessages',
  description:
    "The CIDs of the messages included from the tipset back to epoch `toHeight` whose To and From equal the filter's (the address forms must match: an ID address does not match a key address), newest tipset first; null when none, or when the filter's address has no actor at the tipset.",
  permission: 'read',
  expensive: true,
  params: [
    messageMatchParam,
    tipSetKeyParam('tsk', 'the tipset to walk back from; null or [] for the head'),
    epochParam('toHeight', 'the lowest epoch to look at'),
  ],
  result: {
    name: 'cids',
    description: 'message CIDs (the signed CID for secp256k1 messages), or null',
    schema: { type: ['array', 'null'], items: cidSchema },
    encode: (cids: CID[]): CidJson[] | null => (cids.length === 0 ? null : cids.map(cidToLotusJson)),
  },
  handler: async ([match, key, toHeight], { chain }, { signal }) => {
    if (match.to === undefined && match.from === undefined) {
      throw new InvalidArgumentError('must specify at least To or From in message filter');
    }
    let tipSet = chain.store.tipSetOrHead(key);
    if (!filterAddressExists(chain, match, tipSet)) return [];
    const found: CID[] = [];
    let walked = 0;
    while (tipSet.height >= toHeight) {
      // From the head back to genesis on a long chain: the node keeps serving, and a caller that leaves ends it.
      if (++walked % LIST_TIPSETS_PER_TURN === 0) await nextTurn(signal);
      for (const { cid, message } of chain.store.tipSetMessages(tipSet)) {
        if (match.from !== undefined && !match.from.equals(message.from)) continue;
        if (match.to !== undefined && !match.to.equals(message.to)) continue;
        found.push(cid);
      }
      if (tipSet.height === 0n) break;
      tipSet = chain.store.loadTipSet(tipSet.parents);
    }
    return found;
  },
});

const methodNumberParam = uint64Param('method', 'the method number');

export const stateDecodeParams = declareChainMethod({
  name: 'StateDecodeParams',
  description:
    "Decodes the CBOR parameters of a builtin actor's method, the actor named by its address at the tipset, into the Lotus JSON of their Go type (e.g. a multisig Propose's {To, Value, Method, Params}). Knows the parameters of the methods users send (init Exec, power CreateMiner, miner ChangeWorkerAddress and WithdrawBalance, every multisig method, account AuthenticateMessage).",
  permission: 'read',
  params: [
    addressParam('toAddr', 'the actor the message is sent to'),
    methodNumberParam,
    bytesParam('params', 'the CBOR parameters, base64'),
    tipSetKeyParam('tsk', 'the tipset; null or [] for the head'),
  ],
  result: jsonResult<unknown>('params', 'the parameters as Lotus JSON', { type: 'object' }),
  handler: ([to, method, params, key], { chain }) => {
    const actor = actorAt(stateTreeOf(chain, key), to);
    if (actor === undefined) throw new InvalidArgumentError(`getting actor: actor not found: ${to}`);
    const name = actorNameOf(actor.code);
    if (name === undefined) throw new InvalidArgumentError(`getting params type: unknown actor code ${actor.code}`);
    return decodeParamsToJson(name, method, params);
  },
});

/** Any JSON value, kept as sent (Go `json.RawMessage`). */
const rawJsonParam: ParamDeclaration<unknown, unknown> = {
  name: 'params',
  description: 'the parameters as the Lotus JSON of their Go type',
  schema: { type: 'object' },
  decode: (json) => json,
};

const paramsBytesResult: ResultDeclaration<Uint8Array, string> = bytesResult('the CBOR parameters, base64');

export const stateEncodeParams = declareChainMethod({
  name: 'StateEncodeParams',
  description:
    "Encodes the Lotus JSON of a builtin actor method's parameters (fields matched without regard to case, absent ones zero; an unknown field is refused) to the CBOR the actor reads, the actor named by its code CID. The methods StateDecodeParams knows.",
  permission: 'read',
  apiVersions: [1],
  params: [cidParam('toActCode', "the actor's code CID"), methodNumberParam, rawJsonParam],
  result: paramsBytesResult,
  handler: ([code, method, params]) => {
    const name = actorNameOf(code);
    if (name === undefined) throw new InvalidArgumentError(`getting params type: unknown actor code ${code}`);
    return encodeParamsFromJson(name, method, stringifyJsonLossless(params));
  },
});

export const stateCallMethods = [stateCall, stateListMessages, stateDecodeParams, stateEncodeParams];
