/**
 * The state after each tipset (Lotus `StateManager.TipSetState`, filecoin-project/lotus
 * `chain/stmgr`): its children's ParentStateRoot and ParentMessageReceipts, computed by executing
 * the tipset's messages on its own ParentStateRoot. Genesis is never executed. Results are recorded
 * in the chain index, so a tipset runs once per database; concurrent requests share one run, and
 * runs happen one at a time so each can build on the state the previous one left decoded in memory.
 *
 * A run's blocks are staged in memory and written together with the index row in one transaction:
 * a crash leaves either the whole state of a tipset or none of it.
 */
import type { Logger } from 'pino';
import type { LedgerDatabase, TipSetStateRecord } from '../db/index.js';
import { WriteBatch } from '../ipld/index.js';
import type { TipSet } from '../types/index.js';
import { TipsetExecutor } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { tipSetExecutionInput } from './message-replay.js';
import { StateNotAvailableError } from './snapshot/errors.js';

export class TipSetStates {
  readonly #chain: ChainStore;
  readonly #db: LedgerDatabase;
  readonly #logger: Logger | undefined;
  readonly #staging: WriteBatch;
  readonly #executor: TipsetExecutor;
  readonly #inFlight = new Map<string, Promise<TipSetStateRecord>>();
  /** The last run; the next one starts when it settles. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(chain: ChainStore, db: LedgerDatabase, logger?: Logger) {
    this.#chain = chain;
    this.#db = db;
    this.#logger = logger;
    this.#staging = new WriteBatch(db.blockstore);
    this.#executor = new TipsetExecutor(this.#staging);
  }

  /** The state and receipts roots after executing `tipSet`. */
  stateOf(tipSet: TipSet): Promise<TipSetStateRecord> {
    // Below a pruned or imported window the index may still name roots whose blocks are gone.
    const oldest = this.#chain.oldestStateEpoch();
    if (oldest !== undefined && tipSet.height > 0n && tipSet.height < oldest) {
      return Promise.reject(new StateNotAvailableError(tipSet.height, oldest, this.#chain.statePruned()));
    }
    const recorded = this.#db.chainIndex.getTipSetState(tipSet.key);
    if (recorded !== undefined) return Promise.resolve(recorded);
    const key = tipSet.key.toString();
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      pending = this.#queue.then(() => this.#execute(tipSet));
      this.#queue = pending.catch(() => undefined);
      this.#inFlight.set(key, pending);
      const forget = () => this.#inFlight.delete(key);
      pending.then(forget, forget);
    }
    return pending;
  }

  async #execute(tipSet: TipSet): Promise<TipSetStateRecord> {
    const recorded = this.#db.chainIndex.getTipSetState(tipSet.key);
    if (recorded !== undefined) return recorded;
    const started = performance.now();
    const input = tipSetExecutionInput(this.#chain, tipSet);
    try {
      const applied = await this.#executor.apply(tipSet.parentStateRoot, input, { networkParams: this.#chain.params });
      const state = { stateRoot: applied.stateRoot, receiptsRoot: applied.receiptsRoot };
      this.#db.transaction(() => {
        this.#staging.commit();
        this.#db.chainIndex.putTipSetState(tipSet.key, state);
      });
      this.#logger?.debug(
        { height: tipSet.height, messages: applied.receipts.length, ms: Math.round(performance.now() - started) },
        'tipset executed',
      );
      return state;
    } catch (error) {
      this.#staging.discard();
      throw error;
    }
  }
}
