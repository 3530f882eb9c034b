/**
 * The checks Lotus runs on messages before sending them (filecoin-project/lotus
 * `chain/messagepool/check.go`, MpoolCheckMessages and MpoolCheckPendingMessages; `lotus send`
 * and the msig commands stop on a failed one): per message, in Lotus's order, the sender's state
 * nonce and balance, serialization, size, syntax, minimum gas, fee cap against the minimum, current
 * and bounded base fees, nonce and funds. Judged against the pool's head as the pool would judge
 * them; nothing is added to the pool.
 */
import type { CID } from 'multiformats/cid';
import type { NetworkParams } from '../params/index.js';
import {
  type Address,
  encodeMessage,
  type JsonInteger,
  type Message,
  messageCid,
  toJsonInteger,
} from '../types/index.js';
import { onChainMessage } from '../vm/index.js';
import { MAX_MESSAGE_SIZE, type MessagePool } from './message-pool.js';
import { blockInclusionProblem } from './validation.js';

/** Lotus `api.CheckStatusCode`, numbered as Lotus numbers them. */
export const CheckStatusCode = {
  MessageSerialize: 1,
  MessageSize: 2,
  MessageValidity: 3,
  MessageMinGas: 4,
  MessageMinBaseFee: 5,
  MessageBaseFee: 6,
  MessageBaseFeeLowerBound: 7,
  MessageBaseFeeUpperBound: 8,
  MessageGetStateNonce: 9,
  MessageNonce: 10,
  MessageGetStateBalance: 11,
  MessageBalance: 12,
} as const;
export type CheckStatusCode = (typeof CheckStatusCode)[keyof typeof CheckStatusCode];

/** Lotus `api.MessageCheckStatus`; `hint` values are already Lotus JSON. */
export interface MessageCheckStatus {
  readonly cid: CID;
  readonly code: CheckStatusCode;
  readonly ok: boolean;
  readonly err: string;
  readonly hint: Readonly<Record<string, unknown>> | null;
}

/** Lotus `baseFeeLowerBoundFactor` and `baseFeeUpperBoundFactor`. */
const BASE_FEE_LOWER_BOUND_FACTOR = 10n;
const BASE_FEE_UPPER_BOUND_FACTOR = 10n;
/** Lotus leaves 128 bytes of MaxMessageSize for the signature of a message not signed yet. */
const SIGNATURE_ALLOWANCE = 128;

export interface CheckOptions {
  /**
   * The messages are the pool's own (MpoolCheckPendingMessages): nonces and funds start from the
   * sender's state, not from its pooled run.
   */
  readonly interned: boolean;
  /** Per message: its nonce is not decided yet (a MessagePrototype without ValidNonce), so not checked. */
  readonly flexibleNonces?: readonly boolean[] | undefined;
}

interface SenderProgress {
  nextNonce: bigint;
  requiredFunds: bigint;
}

/** Lotus GasCharge as JSON (whole gas; ours are kept in milligas). */
function gasChargeJson(chainLength: number) {
  const charge = onChainMessage(chainLength);
  return {
    Name: charge.name,
    Extra: null,
    ComputeGas: charge.compute / 1000,
    StorageGas: charge.storage / 1000,
    VirtualCompute: 0,
    VirtualStorage: 0,
  };
}

/** Lotus `checkMessages`: one list of check results per message, in the order the checks ran. */
export function checkMessages(
  pool: MessagePool,
  params: NetworkParams,
  messages: readonly Message[],
  options: CheckOptions,
): MessageCheckStatus[][] {
  const baseFee = pool.head.parentBaseFee;
  const lowerBound = baseFee / BASE_FEE_LOWER_BOUND_FACTOR;
  const baseFeeLowerBound = lowerBound < params.minimumBaseFee ? params.minimumBaseFee : lowerBound;
  const baseFeeUpperBound = baseFee * BASE_FEE_UPPER_BOUND_FACTOR;
  // Keyed by the address as given, as Lotus keys them.
  const senders = new Map<string, SenderProgress>();
  const balances = new Map<string, bigint>();

  return messages.map((message, index) => {
    const cid = messageCid(message);
    const results: MessageCheckStatus[] = [];
    const add = (code: CheckStatusCode, ok: boolean, err = '', hint: Record<string, unknown> | null = null) => {
      results.push({ cid, code, ok, err, hint });
      return ok;
    };
    const from = message.from.toString();
    const sender = senderProgress(pool, message.from, senders.get(from), options.interned);
    if (sender.progress === undefined) {
      // Lotus goes on from nonce 0 for the sender's later messages in the batch.
      senders.set(from, { nextNonce: 0n, requiredFunds: 0n });
      add(CheckStatusCode.MessageGetStateNonce, false, `error retrieving state nonce: ${sender.error}`);
      return results;
    }
    const progress = sender.progress;
    senders.set(from, progress);
    add(CheckStatusCode.MessageGetStateNonce, true, '', sender.hint);

    let balance = balances.get(from);
    if (balance === undefined) {
      const actor = pool.actorAfterHead(message.from);
      if (actor === undefined) {
        balances.set(from, 0n);
        add(CheckStatusCode.MessageGetStateBalance, false, `error retrieving state balance: actor not found`);
        return results;
      }
      balance = actor.balance;
      balances.set(from, balance);
    }
    add(CheckStatusCode.MessageGetStateBalance, true, '', { balance: balance.toString() });

    let bytes: Uint8Array | undefined;
    try {
      bytes = encodeMessage(message);
      add(CheckStatusCode.MessageSerialize, true);
    } catch (error) {
      add(CheckStatusCode.MessageSerialize, false, (error as Error).message);
    }
    const size = bytes?.length ?? 0;
    if (size > MAX_MESSAGE_SIZE - SIGNATURE_ALLOWANCE) add(CheckStatusCode.MessageSize, false, 'message too big');
    else add(CheckStatusCode.MessageSize, true);

    const problem = blockInclusionProblem(message, 0n, params);
    if (!add(CheckStatusCode.MessageValidity, problem === undefined, problemText(problem))) return results;

    const minGas = gasChargeJson(size);
    const minGasTotal = BigInt(minGas.ComputeGas + minGas.StorageGas);
    add(
      CheckStatusCode.MessageMinGas,
      message.gasLimit >= minGasTotal,
      message.gasLimit >= minGasTotal ? '' : 'GasLimit less than epoch minimum gas',
      { minGas },
    );

    if (
      add(
        CheckStatusCode.MessageMinBaseFee,
        message.gasFeeCap >= params.minimumBaseFee,
        message.gasFeeCap >= params.minimumBaseFee ? '' : 'GasFeeCap less than minimum base fee',
      )
    ) {
      const baseFeeHint = baseFee.toString();
      add(
        CheckStatusCode.MessageBaseFee,
        message.gasFeeCap >= baseFee,
        message.gasFeeCap >= baseFee ? '' : 'GasFeeCap less than current base fee',
        { baseFee: baseFeeHint },
      );
      add(
        CheckStatusCode.MessageBaseFeeLowerBound,
        message.gasFeeCap >= baseFeeLowerBound,
        message.gasFeeCap >= baseFeeLowerBound
          ? ''
          : 'GasFeeCap less than base fee lower bound for inclusion in next 20 epochs',
        { baseFeeLowerBound: baseFeeLowerBound.toString(), baseFee: baseFeeHint },
      );
      // A warning only: Lotus reports it with OK true.
      add(
        CheckStatusCode.MessageBaseFeeUpperBound,
        true,
        message.gasFeeCap >= baseFeeUpperBound
          ? ''
          : 'GasFeeCap less than base fee upper bound for inclusion in next 20 epochs',
        { baseFeeUpperBound: baseFeeUpperBound.toString(), baseFee: baseFeeHint },
      );
    }

    const nonceHint = { nextNonce: toJsonInteger(progress.nextNonce) };
    const flexible = options.flexibleNonces?.[index] === true;
    if (!flexible && progress.nextNonce !== message.nonce) {
      add(
        CheckStatusCode.MessageNonce,
        false,
        `message nonce doesn't match next nonce (${progress.nextNonce})`,
        nonceHint,
      );
    } else {
      add(CheckStatusCode.MessageNonce, true, '', nonceHint);
      progress.nextNonce++;
    }

    progress.requiredFunds += message.gasFeeCap * message.gasLimit + message.value;
    const funded = balance >= progress.requiredFunds;
    add(CheckStatusCode.MessageBalance, funded, funded ? '' : 'insufficient balance', {
      requiredFunds: progress.requiredFunds.toString(),
    });
    return results;
  });
}

function problemText(problem: string | undefined): string {
  return problem === undefined ? '' : `syntactically invalid message: ${problem}`;
}

/**
 * Where a sender's nonces and funds start: its pooled run unless the messages are the pool's
 * own, else its state; a sender seen before in the batch carries on (no hint then, as in Lotus).
 */
function senderProgress(
  pool: MessagePool,
  from: Address,
  known: SenderProgress | undefined,
  interned: boolean,
): { progress: SenderProgress; hint: Record<string, JsonInteger> | null } | { progress: undefined; error: string } {
  if (known !== undefined) return { progress: known, hint: null };
  const pending = interned ? undefined : pool.pendingSet(from);
  if (pending !== undefined) {
    let requiredFunds = pending.requiredFunds;
    for (const signed of pending.messages) requiredFunds += signed.message.value;
    return {
      progress: { nextNonce: pending.nextNonce, requiredFunds },
      hint: { nonce: toJsonInteger(pending.nextNonce) },
    };
  }
  const actor = pool.actorAfterHead(from);
  if (actor === undefined) return { progress: undefined, error: `actor ${from} not found` };
  return { progress: { nextNonce: actor.nonce, requiredFunds: 0n }, hint: { nonce: toJsonInteger(actor.nonce) } };
}
