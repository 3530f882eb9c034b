/**
 * Runs one message on top of a state without keeping anything (Lotus `StateCall` and the
 * `CallWithGas` of gas estimation): the resulting InvocResult with its trace, and the root the
 * state would have. The blocks it writes are dropped.
 */
import type { CID } from 'multiformats/cid';
import type { Blockstore } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import { BufferedBlockstore, StateTree } from '../state/index.js';
import { encodeMessage, type Message, messageCid } from '../types/index.js';
import { invocResult } from './apply-tipset.js';
import type { ChainMessage } from './chain-message.js';
import { circulatingSupply } from './circulating-supply.js';
import { VmError, VmErrorCode } from './errors.js';
import type { InvocResult } from './execution-trace.js';
import { Vm } from './vm.js';
import type { RandomnessSource } from './vm-context.js';

/**
 * The gas limit an implicit call runs with, whatever the message says: Lotus's FVM
 * `ApplyImplicitMessage` sets `math.MaxInt64 / 2` on the message itself, so StateCall's answer
 * shows it (filecoin-project/lotus chain/vm/fvm.go).
 */
export const IMPLICIT_CALL_GAS_LIMIT = (1n << 62n) - 1n;

export interface CallOptions {
  readonly networkParams: NetworkParams;
  readonly epoch: bigint;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  /** The chain's randomness as of the tipset the call runs on (Lotus `NewStateRand(ts)`). */
  readonly randomness?: RandomnessSource | undefined;
  /**
   * Chain messages applied (explicitly) before the call: StateCall first applies the messages of
   * its tipset that come from the same sender (Lotus `execSameSenderMessages`).
   */
  readonly prior?: readonly ChainMessage[] | undefined;
  /**
   * `implicit` (StateCall): no fee or inclusion checks; the sender must exist, and the message
   * runs with the sender's current nonce and IMPLICIT_CALL_GAS_LIMIT, as Lotus `callInternal`
   * runs it. `explicit` (gas estimation): the message is pre-validated and charged as a chain
   * message of `chainLength` bytes.
   */
  readonly mode: { readonly kind: 'implicit' } | { readonly kind: 'explicit'; readonly chainLength?: number };
}

function newVm(tree: StateTree, options: CallOptions, baseFee: bigint): Vm {
  return new Vm(tree, {
    networkParams: options.networkParams,
    epoch: options.epoch,
    timestamp: options.timestamp,
    baseFee,
    circulatingSupply: circulatingSupply(tree, options.networkParams),
    tracing: true,
    randomness: options.randomness,
  });
}

/** The message as Lotus's StateCall runs it: the sender's nonce, the implicit gas limit. */
function implicitCallMessage(tree: StateTree, message: Message): Message {
  const senderId = tree.lookupId(message.from);
  const sender = senderId === undefined ? undefined : tree.getActor(senderId);
  if (sender === undefined) {
    throw new VmError(VmErrorCode.InvalidInput, `sender ${message.from} not found on chain: sender validation failed`);
  }
  return { ...message, nonce: sender.nonce, gasLimit: IMPLICIT_CALL_GAS_LIMIT };
}

export function callMessage(
  store: Blockstore,
  stateRoot: CID,
  message: Message,
  options: CallOptions,
): { invocResult: InvocResult; stateRoot: CID } {
  const buffer = new BufferedBlockstore(store);
  try {
    let root = stateRoot;
    const prior = options.prior ?? [];
    if (prior.length > 0) {
      const vm = newVm(StateTree.load(buffer, root), options, options.baseFee);
      for (const chainMessage of prior) vm.applyMessage(chainMessage);
      root = vm.flush();
    }
    const tree = StateTree.load(buffer, root);
    const implicit = options.mode.kind === 'implicit';
    const applied = implicit ? implicitCallMessage(tree, message) : message;
    // Lotus runs a call whose fee cap is zero with no base fee ("make gas free").
    const vm = newVm(tree, options, applied.gasFeeCap === 0n ? 0n : options.baseFee);
    const cid = messageCid(applied);
    const application =
      options.mode.kind === 'implicit'
        ? vm.applyImplicitMessage(applied)
        : vm.applyMessage({
            message: applied,
            cid,
            chainLength: options.mode.chainLength ?? encodeMessage(applied).length,
          });
    return {
      invocResult: invocResult(cid, applied, application, !implicit),
      stateRoot: vm.flush(),
    };
  } finally {
    buffer.discard();
  }
}
