/**
 * Messages run on the state after a tipset, as the Ethereum JSON-RPC runs them
 * (filecoin-project/lotus `node/impl/eth/gas.go` `applyMessage`, `chain/stmgr/call.go`): the
 * post-state of the tipset, at its epoch, timestamp and parent base fee, nothing kept. eth_call
 * applies its message as a chain message with the sender's nonce, the block gas limit and no fees;
 * a sender that does not exist is run as the placeholder a first transfer would make of it, and a
 * sender that cannot send (a contract) is run without sender validation, as Lotus reruns both.
 * eth_getCode and eth_getStorageAt ask the EVM actor itself (GetBytecode, GetStorageAt) from the
 * system actor.
 */
import type { CID } from 'multiformats/cid';
import type { Blockstore } from '../ipld/index.js';
import {
  ACTOR_CODES,
  actorNameOf,
  BufferedBlockstore,
  EMPTY_STATE_HEAD,
  StateTree,
  SYSTEM_ACTOR_ID,
} from '../state/index.js';
import { Address, type Message, type TipSet } from '../types/index.js';
import { callMessage, type ExecutionTrace, ExitCode, type InvocResult } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ChainRandomness } from './randomness.js';

/** Lotus `buildconstants.BlockGasLimit`: what eth_call runs with. */
export const ETH_CALL_GAS_LIMIT = 10_000_000_000n;

/** Where an eth call runs: the state after `tipSet` (its child's parent state, or computed). */
export interface EthCallState {
  readonly tipSet: TipSet;
  readonly stateRoot: CID;
}

function run(
  chain: ChainStore,
  store: Blockstore,
  at: EthCallState,
  stateRoot: CID,
  message: Message,
  implicit: boolean,
): InvocResult {
  return callMessage(store, stateRoot, message, {
    networkParams: chain.params,
    epoch: at.tipSet.height,
    timestamp: at.tipSet.timestamp,
    baseFee: at.tipSet.parentBaseFee,
    randomness: new ChainRandomness(chain, at.tipSet),
    mode: implicit ? { kind: 'implicit' } : { kind: 'explicit' },
  }).invocResult;
}

/**
 * Runs an eth_call / eth_estimateGas message (no fees; `gasLimit` as given) on the state after a
 * tipset: explicitly, with the sender's nonce; without sender validation for a sender that cannot
 * send. A sender with no actor is given a placeholder first.
 */
export function ethCallOnState(chain: ChainStore, at: EthCallState, message: Message): InvocResult {
  const buffer = new BufferedBlockstore(chain.blockstore);
  try {
    const tree = StateTree.load(buffer, at.stateRoot);
    let stateRoot = at.stateRoot;
    let senderId = tree.lookupId(message.from);
    if (senderId === undefined) {
      senderId = tree.registerNewAddress(message.from);
      tree.setActor(senderId, {
        code: ACTOR_CODES.placeholder,
        head: EMPTY_STATE_HEAD,
        nonce: 0n,
        balance: 0n,
        delegatedAddress: message.from,
      });
      stateRoot = tree.flush();
    }
    const sender = tree.getActor(senderId)!;
    const senderType = actorNameOf(sender.code);
    const canSend = senderType === 'account' || senderType === 'ethaccount' || senderType === 'placeholder';
    const explicit = { ...message, nonce: sender.nonce };
    const result = canSend ? run(chain, buffer, at, stateRoot, explicit, false) : undefined;
    if (result !== undefined && result.msgRct.exitCode !== BigInt(ExitCode.SysSenderInvalid)) return result;
    // Lotus reruns with skip-sender-validation (#13724): a contract calling, as geth allows.
    return run(chain, buffer, at, stateRoot, explicit, true);
  } finally {
    buffer.discard();
  }
}

/** Whether an execution trace has `exitCode` anywhere (Lotus `traceContainsExitCode`). */
export function traceHasExitCode(trace: ExecutionTrace, exitCode: number): boolean {
  return trace.msgRct.exitCode === exitCode || trace.subcalls.some((subcall) => traceHasExitCode(subcall, exitCode));
}

/** A read of an actor's method from the system actor (f00), as Lotus's eth_getCode calls GetBytecode. */
export function systemCall(
  chain: ChainStore,
  at: EthCallState,
  to: Address,
  method: bigint,
  params: Uint8Array,
): InvocResult {
  return run(
    chain,
    chain.blockstore,
    at,
    at.stateRoot,
    {
      from: Address.newId(SYSTEM_ACTOR_ID),
      to,
      nonce: 0n,
      value: 0n,
      gasLimit: ETH_CALL_GAS_LIMIT,
      gasFeeCap: 0n,
      gasPremium: 0n,
      method,
      params,
    },
    true,
  );
}
