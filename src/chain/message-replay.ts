/**
 * Re-executing the chain with traces (Lotus `StateManager.Replay` and `ComputeState`,
 * filecoin-project/lotus `chain/stmgr`): StateReplay runs the tipset that included a message on
 * that tipset's ParentStateRoot and returns the message's InvocResult (receipt, GasCost, execution
 * trace); StateCompute runs a whole tipset — null-round cron, every block's messages and reward,
 * cron — and then the caller's messages as if at `height`, and returns the resulting state root
 * with an InvocResult for every message run, implicit ones included.
 *
 * Runs write into a throw-away batch over the chain's blockstore: nothing they produce is kept,
 * and the recorded tipset states are never touched.
 */
import type { CID } from 'multiformats/cid';
import { WriteBatch } from '../ipld/index.js';
import { StateTree } from '../state/index.js';
import type { Message, TipSet } from '../types/index.js';
import { nextTurn, throwIfAborted } from '../utils/abort.js';
import {
  applyTipset,
  blsChainMessage,
  type ComputeStateOutput,
  circulatingSupply,
  ExitCode,
  type InvocResult,
  makeMsgGasCost,
  type TipsetApplication,
  type TipsetInput,
  Vm,
} from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ChainError, ChainErrorCode } from './errors.js';
import { ChainRandomness } from './randomness.js';

/** Caller's messages StateCompute runs between two turns of the event loop. */
const MESSAGES_PER_TURN = 16;

/** What TipSetStates executes for `tipSet`, as the executor's input. */
export function tipSetExecutionInput(chain: ChainStore, tipSet: TipSet): TipsetInput {
  const parent = chain.loadTipSet(tipSet.parents);
  return {
    epoch: tipSet.height,
    parentEpoch: parent.height,
    baseFee: tipSet.parentBaseFee,
    timestamp: tipSet.timestamp,
    genesisTimestamp: chain.genesis.timestamp,
    blocks: tipSet.blocks.map((header) => {
      const { blsMessages, secpMessages } = chain.blockMessages(header);
      return { miner: header.miner, winCount: header.electionProof?.winCount ?? 0n, blsMessages, secpMessages };
    }),
    randomness: new ChainRandomness(chain, tipSet),
  };
}

/** Executes `tipSet` with traces into `store`, without touching the chain's recorded states. */
function executeTraced(chain: ChainStore, store: WriteBatch, tipSet: TipSet): Promise<TipsetApplication> {
  if (tipSet.height === 0n) {
    throw new ChainError(ChainErrorCode.InvalidHeight, 'the genesis tipset executes no messages');
  }
  return applyTipset(store, tipSet.parentStateRoot, tipSetExecutionInput(chain, tipSet), {
    networkParams: chain.params,
    trace: true,
  });
}

/**
 * Lotus `StateManager.Replay`: the InvocResult of message `cid` (its chain CID: the signed
 * message's for secp256k1) as `tipSet` — the tipset that included it — executed it.
 */
export async function replayMessage(chain: ChainStore, tipSet: TipSet, cid: CID): Promise<InvocResult> {
  const applied = await executeTraced(chain, new WriteBatch(chain.blockstore), tipSet);
  // Implicit messages (reward, cron) have no gas cost message; only explicit ones can be asked for.
  const result = applied.invocResults.find((r) => r.gasCost.message !== null && r.msgCid.equals(cid));
  if (result === undefined) throw new ChainError(ChainErrorCode.NotFound, 'given message not found in tipset');
  return result;
}

/**
 * Lotus `ComputeState`: executes `tipSet` on its parent state, then `messages` (unsigned, no
 * signature checks, nonces and gas as given) at epoch `height` on the result. `signal` (the RPC
 * call's) stops the run between messages.
 */
export async function computeState(
  chain: ChainStore,
  tipSet: TipSet,
  height: bigint,
  messages: readonly Message[],
  signal?: AbortSignal,
): Promise<ComputeStateOutput> {
  if (height < tipSet.height) {
    throw new ChainError(
      ChainErrorCode.InvalidHeight,
      `cannot compute the state at height ${height}: below the tipset's height ${tipSet.height}`,
    );
  }
  const store = new WriteBatch(chain.blockstore);
  let root: CID;
  const trace: InvocResult[] = [];
  if (tipSet.height === 0n) {
    root = tipSet.parentStateRoot;
  } else {
    const applied = await executeTraced(chain, store, tipSet);
    root = applied.stateRoot;
    trace.push(...applied.invocResults);
  }
  if (messages.length === 0) return { root, trace };
  throwIfAborted(signal);

  const tree = StateTree.load(store, root);
  const vm = new Vm(tree, {
    networkParams: chain.params,
    epoch: height,
    timestamp: tipSet.timestamp + (height - tipSet.height) * chain.params.blockDelaySecs,
    baseFee: tipSet.parentBaseFee,
    circulatingSupply: circulatingSupply(tree, chain.params),
    tracing: true,
    randomness: new ChainRandomness(chain, tipSet),
  });
  for (const [index, message] of messages.entries()) {
    // Hand the event loop back now and then: a request may carry thousands of messages, and an
    // abort (client gone, node stopping) can only arrive between turns.
    if (index > 0 && index % MESSAGES_PER_TURN === 0) await nextTurn(signal);
    else throwIfAborted(signal);
    const chainMessage = blsChainMessage(message);
    const application = vm.applyMessage(chainMessage);
    if (application.trace === null) throw new Error('a tracing VM returned no trace');
    trace.push({
      msgCid: chainMessage.cid,
      msg: message,
      msgRct: application.receipt,
      gasCost: makeMsgGasCost(chainMessage.cid, application.receipt.gasUsed, application.gasOutputs),
      executionTrace: application.trace,
      error: application.receipt.exitCode === BigInt(ExitCode.Ok) ? '' : application.error,
      duration: application.duration,
    });
  }
  return { root: vm.flush(), trace };
}
