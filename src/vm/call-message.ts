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
import { circulatingSupply } from './circulating-supply.js';
import type { InvocResult } from './execution-trace.js';
import { Vm } from './vm.js';
import type { RandomnessSource } from './vm-context.js';

export interface CallOptions {
  readonly networkParams: NetworkParams;
  readonly epoch: bigint;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  /** The chain's randomness as of the tipset the call runs on (Lotus `NewStateRand(ts)`). */
  readonly randomness?: RandomnessSource | undefined;
  /**
   * `implicit` (StateCall): no nonce, fee or inclusion checks. `explicit` (gas estimation): the
   * message is pre-validated and charged as a chain message of `chainLength` bytes.
   */
  readonly mode: { readonly kind: 'implicit' } | { readonly kind: 'explicit'; readonly chainLength?: number };
}

export function callMessage(
  store: Blockstore,
  stateRoot: CID,
  message: Message,
  options: CallOptions,
): { invocResult: InvocResult; stateRoot: CID } {
  const buffer = new BufferedBlockstore(store);
  try {
    const tree = StateTree.load(buffer, stateRoot);
    const vm = new Vm(tree, {
      networkParams: options.networkParams,
      epoch: options.epoch,
      timestamp: options.timestamp,
      baseFee: options.baseFee,
      circulatingSupply: circulatingSupply(tree, options.networkParams),
      tracing: true,
      randomness: options.randomness,
    });
    const cid = messageCid(message);
    const application =
      options.mode.kind === 'implicit'
        ? vm.applyImplicitMessage(message)
        : vm.applyMessage({ message, cid, chainLength: options.mode.chainLength ?? encodeMessage(message).length });
    return {
      invocResult: invocResult(cid, message, application, options.mode.kind === 'explicit'),
      stateRoot: vm.flush(),
    };
  } finally {
    buffer.discard();
  }
}
