/**
 * Applies messages to a state tree (filecoin-project/ref-fvm `fvm/src/executor/default.rs`):
 *
 * - explicit messages are pre-validated first — inclusion gas within the limit, a valid sender,
 *   the right nonce, the gas fee cap covered — and a message failing that leaves no trace but a
 *   receipt with zero gas and a miner penalty; then the sender pays `gasFeeCap × gasLimit` up
 *   front, the call runs in a transaction, and the gas money is split per `computeGasOutputs`;
 * - implicit messages (reward, cron) run from a system sender with no nonce, fee or inclusion cost.
 *
 * The FVM turns its "fatal" errors into receipts with SYS_ASSERTION_FAILED; we do the same for our
 * VM's fatal conditions (`VmError` Fatal, e.g. an actor code we do not run). Any other exception —
 * a missing block, a bug — fails the application instead of producing a receipt from it.
 */
import type { CID } from 'multiformats/cid';
import { buildAmt } from '../ipld/index.js';
import {
  ACTOR_CODES,
  actorNameOf,
  BURNT_FUNDS_ACTOR_ID,
  EAM_ACTOR_ID,
  REWARD_ACTOR_ID,
  type StateTree,
} from '../state/index.js';
import {
  type Address,
  AddressProtocol,
  EVENT_AMT_BIT_WIDTH,
  type Event,
  eventStruct,
  type Message,
  type MessageReceipt,
  validateMessageFields,
} from '../types/index.js';
import { effectiveGasPremium } from './base-fee.js';
import { CallManager } from './call-manager.js';
import type { ChainMessage } from './chain-message.js';
import { OutOfGasError, VmError, VmErrorCode } from './errors.js';
import { type ExecutionTrace, IpldCodec } from './execution-trace.js';
import { ExitCode } from './exit-code.js';
import { computeGasOutputs, type GasOutputs } from './gas/gas-outputs.js';
import { GasTracker, milligasToGas } from './gas/gas-tracker.js';
import { type GasCharge, onChainMessage } from './gas/price-list.js';
import type { VmContext } from './vm-context.js';

export interface MessageApplication {
  readonly receipt: MessageReceipt;
  /** Zero for implicit messages; only `minerPenalty` for a message failing pre-validation. */
  readonly gasOutputs: GasOutputs;
  /** The call tree, when the VM traces; for a pre-validation failure a bare trace of the message. */
  readonly trace: ExecutionTrace | null;
  /** Why the message failed; "" on success. */
  readonly error: string;
  /** Wall-clock nanoseconds spent applying it. */
  readonly duration: bigint;
}

const NO_GAS_OUTPUTS: GasOutputs = {
  baseFeeBurn: 0n,
  overEstimationBurn: 0n,
  minerPenalty: 0n,
  minerTip: 0n,
  refund: 0n,
  gasRefund: 0n,
  gasBurned: 0n,
};

function receipt(
  exitCode: ExitCode,
  returnData: Uint8Array | null,
  gasUsed: bigint,
  eventsRoot: CID | null,
): MessageReceipt {
  return { version: 1, exitCode: BigInt(exitCode), return: returnData ?? new Uint8Array(0), gasUsed, eventsRoot };
}

/** A trace of a message that never ran (pre-validation failure, refused sender). */
function bareTrace(message: Message, exitCode: ExitCode): ExecutionTrace {
  return {
    msg: {
      from: message.from,
      to: message.to,
      value: message.value,
      method: message.method,
      params: message.params,
      paramsCodec: message.params.length === 0 ? IpldCodec.None : IpldCodec.Cbor,
      gasLimit: message.gasLimit,
      readOnly: false,
    },
    msgRct: { exitCode, return: new Uint8Array(0), returnCodec: IpldCodec.None },
    invokedActor: null,
    gasCharges: [],
    subcalls: [],
  };
}

interface CallOutcome {
  exitCode: ExitCode;
  /** The AMT of the events the message emitted (none: null). */
  eventsRoot?: CID | null;
  returnData: Uint8Array | null;
  gasUsed: bigint;
  error: string;
  trace: ExecutionTrace | null;
}

/** The application of a message whose call ended with `outcome` (or was refused before it ran). */
function application(outcome: CallOutcome, gasOutputs: GasOutputs, started: bigint): MessageApplication {
  return {
    receipt: receipt(outcome.exitCode, outcome.returnData, outcome.gasUsed, outcome.eventsRoot ?? null),
    gasOutputs,
    trace: outcome.trace,
    error: outcome.error,
    duration: process.hrtime.bigint() - started,
  };
}

export class Vm {
  readonly tree: StateTree;
  readonly context: VmContext;

  constructor(tree: StateTree, context: VmContext) {
    this.tree = tree;
    this.context = context;
  }

  applyMessage(chainMessage: ChainMessage): MessageApplication {
    const started = process.hrtime.bigint();
    const { message } = chainMessage;
    const { baseFee } = this.context;
    const refuse = (exitCode: ExitCode, error: string, penalty: bigint): MessageApplication =>
      application(this.#refused(message, exitCode, error), { ...NO_GAS_OUTPUTS, minerPenalty: penalty }, started);

    try {
      validateMessageFields(message);
    } catch (error) {
      // Block validation keeps such messages out of the chain; the VM refuses to guess what they mean.
      throw new VmError(VmErrorCode.InvalidInput, `message ${chainMessage.cid}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const inclusion = onChainMessage(chainMessage.chainLength);
    const inclusionGas = milligasToGas(inclusion.compute + inclusion.storage);
    if (inclusionGas > message.gasLimit) {
      return refuse(ExitCode.SysOutOfGas, `Out of gas (${inclusionGas} > ${message.gasLimit})`, baseFee * inclusionGas);
    }
    const penalty = baseFee * message.gasLimit;
    const senderId = this.tree.lookupId(message.from);
    const sender = senderId === undefined ? undefined : this.tree.getActor(senderId);
    if (senderId === undefined || sender === undefined)
      return refuse(ExitCode.SysSenderInvalid, 'Sender invalid', penalty);
    let code = sender.code;
    const senderType = actorNameOf(code);
    if (senderType === 'placeholder' && sender.nonce === 0n && isEamDelegated(sender.delegatedAddress)) {
      // An f410 key's first message turns its placeholder into an EthAccount (FVM preflight).
      code = ACTOR_CODES.ethaccount;
    } else if (senderType !== 'account' && senderType !== 'ethaccount') {
      return refuse(ExitCode.SysSenderInvalid, 'Send not from valid sender', penalty);
    }
    if (message.nonce !== sender.nonce) {
      return refuse(
        ExitCode.SysSenderStateInvalid,
        `Actor sequence invalid: ${message.nonce} != ${sender.nonce}`,
        penalty,
      );
    }
    const gasCost = message.gasFeeCap * message.gasLimit;
    if (sender.balance < gasCost) {
      return refuse(
        ExitCode.SysSenderStateInvalid,
        `Actor balance less than needed: ${sender.balance} < ${gasCost}`,
        penalty,
      );
    }
    this.tree.setActor(senderId, { ...sender, code, nonce: sender.nonce + 1n, balance: sender.balance - gasCost });

    const outcome = this.#run(message, senderId, inclusion);
    const outputs = computeGasOutputs(
      outcome.gasUsed,
      message.gasLimit,
      baseFee,
      message.gasFeeCap,
      message.gasPremium,
    );
    this.#deposit(BURNT_FUNDS_ACTOR_ID, outputs.baseFeeBurn + outputs.overEstimationBurn);
    this.#deposit(REWARD_ACTOR_ID, outputs.minerTip);
    this.#deposit(senderId, outputs.refund);
    if (outputs.baseFeeBurn + outputs.overEstimationBurn + outputs.minerTip + outputs.refund !== gasCost) {
      throw new VmError(VmErrorCode.Fatal, 'gas handling math is wrong: the outputs do not sum to the gas cost');
    }
    return application(outcome, outputs, started);
  }

  /** A message from a system actor: no nonce, fee or inclusion charge; it must name an existing sender. */
  applyImplicitMessage(message: Message): MessageApplication {
    const started = process.hrtime.bigint();
    const senderId = this.tree.lookupId(message.from);
    if (senderId === undefined || this.tree.getActor(senderId) === undefined) {
      return application(this.#refused(message, ExitCode.SysSenderInvalid, 'Sender invalid'), NO_GAS_OUTPUTS, started);
    }
    return application(this.#run(message, senderId, undefined), NO_GAS_OUTPUTS, started);
  }

  /** Writes the state tree and returns its root. */
  flush(): CID {
    return this.tree.flush();
  }

  /** A message refused before it ran: no gas used, and a bare trace when tracing. */
  #refused(message: Message, exitCode: ExitCode, error: string): CallOutcome {
    const trace = this.context.tracing ? bareTrace(message, exitCode) : null;
    return { exitCode, returnData: null, gasUsed: 0n, error, trace };
  }

  #run(message: Message, senderId: bigint, inclusion: GasCharge | undefined): CallOutcome {
    const gas = new GasTracker(message.gasLimit);
    const calls = new CallManager(
      this.context,
      this.tree,
      gas,
      {
        id: senderId,
        address: message.from,
        nonce: message.nonce,
        gasPremium: effectiveGasPremium(message, this.context.baseFee),
      },
      this.tree.lookupId(message.to),
    );
    if (inclusion !== undefined) calls.charge(inclusion);
    const params = message.params.length === 0 ? null : message.params;
    try {
      const result = calls.call(senderId, message.to, message.method, params, message.value);
      const eventsRoot = this.#eventsRoot(calls.events);
      return { ...result, eventsRoot, gasUsed: gas.gasUsed, trace: calls.executionTrace() };
    } catch (error) {
      if (error instanceof OutOfGasError) {
        return {
          exitCode: ExitCode.SysOutOfGas,
          returnData: null,
          gasUsed: gas.gasUsed,
          error: error.message,
          trace: calls.executionTrace(),
        };
      }
      if (error instanceof VmError && error.code === VmErrorCode.Fatal) {
        return {
          exitCode: ExitCode.SysAssertionFailed,
          returnData: null,
          gasUsed: message.gasLimit,
          error: error.message,
          trace: calls.executionTrace(),
        };
      }
      throw error;
    }
  }

  /**
   * The receipt's EventsRoot: an AMT (bit width 5) of the message's events as StampedEvents, in the
   * state's store so that it reaches the chain store with the receipts (ref-fvm
   * `call_manager/default.rs` EventsAccumulator::finish; FIP-0049).
   */
  #eventsRoot(events: readonly Event[]): CID | null {
    if (events.length === 0) return null;
    return buildAmt(this.tree.store, events.map(eventStruct.toCborNode), { bitWidth: EVENT_AMT_BIT_WIDTH });
  }

  #deposit(id: bigint, amount: bigint): void {
    if (amount === 0n) return;
    const actor = this.tree.requireActor(id, 'gas payment');
    this.tree.setActor(id, { ...actor, balance: actor.balance + amount });
  }
}

function isEamDelegated(address: Address | null): boolean {
  return (
    address !== null && address.protocol === AddressProtocol.Delegated && address.delegated().namespace === EAM_ACTOR_ID
  );
}
