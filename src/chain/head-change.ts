/**
 * Head changes as subscribers see them (Lotus `ReorgOps`, `HeadChange`): the tipsets taken off the
 * canonical chain, newest first, then the tipsets put on, oldest first. The message pool and sync
 * follow the chain through `HeadChangeSource`, which the chain store implements.
 */
import type { TipSet, TipSetKey } from '../types/index.js';

export interface HeadChange {
  readonly revert: readonly TipSet[];
  readonly apply: readonly TipSet[];
}

/** Called once per head change, in order; a returned promise is awaited before the next change. */
export type HeadChangeListener = (change: HeadChange) => void | Promise<void>;

export interface HeadChangeSource {
  head(): TipSet;
  /** Returns the function that unsubscribes. */
  subscribeHeadChanges(listener: HeadChangeListener): () => void;
}

/**
 * The path from `from` to `to` through their common ancestor. Walks the higher side back first
 * (both when level, `to` first), as Lotus `ReorgOps` does.
 */
export function headChangePath(from: TipSet, to: TipSet, loadTipSet: (key: TipSetKey) => TipSet): HeadChange {
  const walk = headChangeSteps(from, to, loadTipSet);
  for (;;) {
    const step = walk.next();
    if (step.done) return step.value;
  }
}

/**
 * `headChangePath` one tipset at a time: the generator yields after each tipset it loads, so a
 * caller walking a long path (from genesis to the head) can hand the event loop back between steps.
 */
export function* headChangeSteps(
  from: TipSet,
  to: TipSet,
  loadTipSet: (key: TipSetKey) => TipSet,
): Generator<void, HeadChange, void> {
  const revert: TipSet[] = [];
  const apply: TipSet[] = [];
  let left = from;
  let right = to;
  while (!left.equals(right)) {
    if (left.height > right.height) {
      revert.push(left);
      left = loadTipSet(left.parents);
    } else {
      apply.push(right);
      right = loadTipSet(right.parents);
    }
    yield;
  }
  return { revert, apply: apply.reverse() };
}
