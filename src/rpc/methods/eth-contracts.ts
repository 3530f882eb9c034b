/**
 * The Ethereum JSON-RPC's contract methods (filecoin-project/lotus `node/impl/eth/gas.go`,
 * `basic.go`): eth_call and eth_estimateGas run the call as a Filecoin message (InvokeContract with
 * the input as a CBOR byte string, or EAM CreateExternal for a deploy) on the state after the
 * block, a failure being error 3 with the revert data; eth_getCode and eth_getStorageAt ask the
 * EVM actor (GetBytecode, GetStorageAt) from the system actor. "latest" is the head's parent, and
 * the state "at" a block is the state after it.
 */
import { ETH_CALL_GAS_LIMIT, ethCallOnState, systemCall, traceHasExitCode } from '../../chain/eth-call.js';
import { actorNameOf, StateTree } from '../../state/index.js';
import {
  type Address,
  AddressProtocol,
  addressFromEthAddressBytes,
  CREATE_EXTERNAL_METHOD,
  decodeChainCbor,
  EAM_ADDRESS,
  encodeCbor,
  INVOKE_CONTRACT_METHOD,
  type Message,
  readBytes,
  type TipSet,
} from '../../types/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import { EvmMethod, ExitCode, type InvocResult } from '../../vm/index.js';
import type { ServedContext } from '../context.js';
import { JsonRpcError, JsonRpcErrorCode } from '../errors.js';
import { ethTipSets } from '../eth-chain.js';
import {
  blockParam,
  callRequestParam,
  dataSchema,
  type EthCallRequest,
  ethAddressParam,
  hexData,
  optionalParam,
  quantity,
  quantitySchema,
  readHexData,
} from '../eth-codecs.js';
import { executionReverted } from '../eth-revert.js';
import { declareMethod, type ParamDeclaration } from '../method.js';
import { jsonResult } from '../results.js';
import { stringSchema } from '../schemas.js';

const V1 = [1] as const;

type CallContext = ServedContext<'chain' | 'eth'>;

/**
 * Lotus `EthCall.ToFilecoinMessage`: from the sender's f410 (the zero address's when none; a
 * masked ID is refused unless `allowMaskedId`: eth_estimateGas here estimates for f1/f3 accounts
 * by their masked ID too), InvokeContract with the input as a CBOR byte string, or EAM
 * CreateExternal for a deploy; the block gas limit, no fees.
 */
export function ethCallMessage(request: EthCallRequest, options: { allowMaskedId: boolean }): Message {
  const sender = request.from ?? new Uint8Array(20);
  const from = addressFromEthAddressBytes(sender);
  if (from.protocol !== AddressProtocol.Delegated && !options.allowMaskedId) {
    throw new InvalidArgumentError(
      `expected a class 4 address, got: ${from.protocol} (${hexData(sender)} is a masked ID)`,
    );
  }
  const deploy = request.to === null;
  return {
    from,
    to: deploy ? EAM_ADDRESS : addressFromEthAddressBytes(request.to!),
    nonce: 0n,
    value: request.value,
    gasLimit: ETH_CALL_GAS_LIMIT,
    gasFeeCap: 0n,
    gasPremium: 0n,
    method: deploy ? CREATE_EXTERNAL_METHOD : INVOKE_CONTRACT_METHOD,
    params: request.input.length === 0 && !deploy ? new Uint8Array(0) : encodeCbor(request.input),
  };
}

/** Where a call on the state after `tipSet` runs. */
async function stateAt(context: CallContext, tipSet: TipSet) {
  return { tipSet, stateRoot: (await context.chain.states.stateOf(tipSet)).stateRoot };
}

/** The call's result, or error 3 when its message failed. */
function succeeded(result: InvocResult): InvocResult {
  if (result.msgRct.exitCode !== 0n) throw executionReverted(result);
  return result;
}

const callBlockParam = blockParam(
  'blkParam',
  'the block whose post-state the call runs on: a tag, a hex number or {blockHash}',
);

export const ethCall = declareMethod({
  name: 'EthCall',
  description:
    'Runs a call (no transaction) on the state after the given block and returns its output; a deploy (no `to`) returns 0x. A failed call is error 3: message "execution reverted: <reason>", data the revert data.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_call'],
  needs: ['chain', 'eth'],
  expensive: true,
  params: [callRequestParam('tx', 'the call: from, to, value, input or data'), callBlockParam],
  result: jsonResult<string>('output', 'the return data, hex', dataSchema),
  handler: async ([request, block], context) => {
    const message = ethCallMessage(request, { allowMaskedId: false });
    const at = await stateAt(context, ethTipSets(context).resolve(block, false));
    const result = succeeded(ethCallOnState(context.chain.store, at, message));
    if (message.to.equals(EAM_ADDRESS)) return '0x';
    const returned = result.msgRct.return;
    return returned.length === 0 ? '0x' : hexData(readBytes(decodeChainCbor(returned, 'return'), 'return'));
  },
});

/** Lotus `gasSearch`: doubles the limit until the call succeeds (at most the block limit), then bisects to 1%. */
function searchGasLimit(run: (gasLimit: bigint) => InvocResult, start: bigint): bigint {
  const succeeds = (limit: bigint) => run(limit).msgRct.exitCode === 0n;
  let low = start;
  let high = start;
  while (!succeeds(high)) {
    low = high;
    high *= 2n;
    if (high > ETH_CALL_GAS_LIMIT) {
      high = ETH_CALL_GAS_LIMIT;
      break;
    }
  }
  let threshold = high / 100n;
  while (high - low > threshold) {
    const median = (low + high) / 2n;
    if (succeeds(median)) high = median;
    else low = median;
    threshold = median / 100n;
  }
  return high;
}

export const ethEstimateGas = declareMethod({
  name: 'EthEstimateGas',
  description:
    "Executes the call on the state after the given block (the head by default) and returns a gas limit that is enough (Filecoin gas): the gas used with the message pool's overestimation, searched upward when a nested call runs out of gas with it. A failed execution is error 3 with the revert data.",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_estimateGas'],
  needs: ['chain', 'eth', 'mpool'],
  expensive: true,
  params: [
    callRequestParam('tx', 'the call: from, to, value, input or data'),
    optionalParam(blockParam('blkParam', 'the block whose post-state the call runs on; the head when left out')),
  ],
  result: jsonResult<string>('gas', 'the gas limit to use', quantitySchema),
  handler: async ([request, block], context) => {
    const tipSets = ethTipSets(context);
    const tipSet = block === null ? tipSets.head : tipSets.resolve(block, false);
    const message = ethCallMessage(request, { allowMaskedId: true });
    const at = await stateAt(context, tipSet);
    const run = (gasLimit: bigint) => ethCallOnState(context.chain.store, at, { ...message, gasLimit });
    let gasLimit: bigint;
    try {
      const estimated = await context.mpool.gas.estimateMessageGas({ ...message, gasLimit: 0n }, undefined, tipSet);
      gasLimit = estimated.gasLimit;
    } catch {
      // A revert, or a sender that cannot send (missing, a contract): Lotus estimates those without
      // sender validation, and reruns a revert to answer its data.
      const used = succeeded(run(ETH_CALL_GAS_LIMIT)).msgRct.gasUsed;
      gasLimit = BigInt(Math.trunc(Number(used) * context.mpool.pool.config.gasLimitOverestimation));
      if (gasLimit > ETH_CALL_GAS_LIMIT) gasLimit = ETH_CALL_GAS_LIMIT;
    }
    // Lotus `ethGasSearch`: the estimate must be enough when the call runs with it.
    const probe = run(gasLimit);
    if (probe.msgRct.exitCode === 0n) return quantity(gasLimit);
    if (!traceHasExitCode(probe.executionTrace, ExitCode.SysOutOfGas)) throw executionReverted(probe);
    const found = searchGasLimit(run, gasLimit);
    return quantity(BigInt(Math.trunc(Number(found) * context.mpool.pool.config.gasLimitOverestimation)));
  },
});

/** The EVM actor at an address in the state after a block, or undefined for any other actor or none. */
function evmActorAt(context: CallContext, at: Awaited<ReturnType<typeof stateAt>>, address: Address) {
  const tree = StateTree.load(context.chain.store.blockstore, at.stateRoot);
  const id = tree.lookupId(address);
  const actor = id === undefined ? undefined : tree.getActor(id);
  return actor !== undefined && actorNameOf(actor.code) === 'evm' ? actor : undefined;
}

const stateBlockParam = blockParam(
  'blkParam',
  'the block whose post-state is read: a tag, a hex number or {blockHash}',
);

export const ethGetCode = declareMethod({
  name: 'EthGetCode',
  description:
    'The EVM bytecode of a contract after the given block (its GetBytecode, then the block); "0x" for accounts, native actors, dead contracts and addresses with no actor.',
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getCode'],
  needs: ['chain', 'eth'],
  params: [ethAddressParam('address', 'the 0x address'), stateBlockParam],
  result: jsonResult<string>('code', 'the bytecode as hex', stringSchema),
  handler: async ([address, block], context) => {
    const at = await stateAt(context, ethTipSets(context).resolve(block, false));
    const to = addressFromEthAddressBytes(address);
    if (evmActorAt(context, at, to) === undefined) return '0x';
    const result = systemCall(context.chain.store, at, to, EvmMethod.GetBytecode, new Uint8Array(0));
    if (result.msgRct.exitCode !== 0n) {
      throw new JsonRpcError(
        JsonRpcErrorCode.CallFailed,
        `GetBytecode failed: exit ${result.msgRct.exitCode} ${result.error}`,
      );
    }
    const cid = decodeChainCbor(result.msgRct.return, 'GetBytecodeReturn');
    if (cid === null) return '0x';
    const bytes = context.chain.store.blockstore.get(cid as never);
    if (bytes === undefined)
      throw new JsonRpcError(JsonRpcErrorCode.CallFailed, `the bytecode block ${String(cid)} is not in the blockstore`);
    return hexData(bytes);
  },
});

/** A storage slot: up to 32 bytes of hex, left-padded (Lotus refuses longer keys). */
const storageKeyParam: ParamDeclaration<Uint8Array, string> = {
  name: 'position',
  description: 'the storage slot: up to 32 bytes of hex',
  schema: dataSchema,
  decode: (json, path) => {
    const bytes = readHexData(json, path);
    if (bytes.length > 32)
      throw new InvalidArgumentError(`${path}: supplied storage key is too long (${bytes.length} > 32 bytes)`);
    const key = new Uint8Array(32);
    key.set(bytes, 32 - bytes.length);
    return key;
  },
};

export const ethGetStorageAt = declareMethod({
  name: 'EthGetStorageAt',
  description:
    "A contract's storage slot after the given block (its GetStorageAt): 32 bytes; zeros for an unset slot and for addresses that are no contract.",
  permission: 'read',
  apiVersions: V1,
  aliases: ['eth_getStorageAt'],
  needs: ['chain', 'eth'],
  params: [ethAddressParam('address', 'the 0x address'), storageKeyParam, stateBlockParam],
  result: jsonResult<string>('value', 'the 32-byte value', dataSchema),
  handler: async ([address, key, block], context) => {
    const at = await stateAt(context, ethTipSets(context).resolve(block, false));
    const to = addressFromEthAddressBytes(address);
    const value = new Uint8Array(32);
    if (evmActorAt(context, at, to) === undefined) return hexData(value);
    const result = systemCall(context.chain.store, at, to, EvmMethod.GetStorageAt, encodeCbor([key]));
    if (result.msgRct.exitCode !== 0n) {
      throw new JsonRpcError(
        JsonRpcErrorCode.CallFailed,
        `failed to lookup storage slot: exit ${result.msgRct.exitCode} ${result.error}`,
      );
    }
    const word = readBytes(decodeChainCbor(result.msgRct.return, 'GetStorageAtReturn'), 'GetStorageAtReturn');
    value.set(word.subarray(Math.max(0, word.length - 32)), 32 - Math.min(32, word.length));
    return hexData(value);
  },
});

export const ethContractMethods = [ethCall, ethEstimateGas, ethGetCode, ethGetStorageAt] as const;
