/**
 * What each sync worker is doing (Lotus `chain/syncstate.go`, `api.SyncState`): base and target
 * tipsets, stage, current height, start/end times and the error. Stage numbers and names are
 * Lotus's (`SyncStateStage`, filecoin-project/lotus `api/api_full.go`); the JSON is `SyncState`
 * `{ActiveSyncs, VMApplied}`. One difference: Base moves up as tipsets are validated (Lotus keeps
 * the starting head), so a worker that reached its target shows `Height diff: 0`, the spec's sign
 * of a synced node.
 */
import { type TipSet, type TipSetJson, tipSetToLotusJson } from '../types/index.js';

export const SyncStage = {
  Idle: 0,
  Headers: 1,
  PersistHeaders: 2,
  Messages: 3,
  Complete: 4,
  Errored: 5,
  FetchingMessages: 6,
} as const;
export type SyncStage = (typeof SyncStage)[keyof typeof SyncStage];

const STAGE_NAMES: Record<number, string> = {
  0: 'idle',
  1: 'header sync',
  2: 'persisting headers',
  3: 'message sync',
  4: 'complete',
  5: 'error',
  6: 'fetching messages',
};

/** Lotus `SyncStateStage.String()`. */
export function syncStageName(stage: number): string {
  return STAGE_NAMES[stage] ?? `<unknown: ${stage}>`;
}

export class SyncWorkerState {
  base: TipSet | null = null;
  target: TipSet | null = null;
  stage: SyncStage = SyncStage.Idle;
  height = 0n;
  message = '';
  start: Date | null = null;
  end: Date | null = null;

  constructor(readonly workerId: number) {}

  /** Lotus `SyncerState.Init`. */
  init(base: TipSet, target: TipSet): void {
    this.base = base;
    this.target = target;
    this.stage = SyncStage.Headers;
    this.height = 0n;
    this.message = '';
    this.start = new Date();
    this.end = null;
  }

  setStage(stage: SyncStage): void {
    this.stage = stage;
    if (stage === SyncStage.Complete) this.end = new Date();
  }

  setHeight(height: bigint): void {
    this.height = height;
  }

  /**
   * A tipset was validated and added: it becomes the base, so `Height diff` (target − base) counts
   * what is left and reads 0 once the worker reached its target.
   */
  advance(tipSet: TipSet): void {
    this.base = tipSet;
    this.height = tipSet.height;
  }

  error(error: unknown): void {
    this.message = error instanceof Error ? error.message : String(error);
    this.stage = SyncStage.Errored;
    this.end = new Date();
  }
}

export interface ActiveSyncJson {
  WorkerID: number;
  Base: TipSetJson | null;
  Target: TipSetJson | null;
  Stage: number;
  Height: number;
  Start: string;
  End: string;
  Message: string;
}

export interface SyncStateJson {
  ActiveSyncs: ActiveSyncJson[];
  VMApplied: number;
}

/** Go's zero `time.Time` in JSON. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

export function workerStateToLotusJson(state: SyncWorkerState): ActiveSyncJson {
  return {
    WorkerID: state.workerId,
    Base: state.base === null ? null : tipSetToLotusJson(state.base),
    Target: state.target === null ? null : tipSetToLotusJson(state.target),
    Stage: state.stage,
    Height: Number(state.height),
    Start: state.start?.toISOString() ?? ZERO_TIME,
    End: state.end?.toISOString() ?? ZERO_TIME,
    Message: state.message,
  };
}
