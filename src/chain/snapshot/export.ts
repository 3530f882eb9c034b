/**
 * Chain export (Lotus `ChainExport` / `ExportV1`): a CAR v1 whose roots are the head tipset's block
 * CIDs and whose blocks follow `SnapshotWalk`. The CAR streams into any Writable with backpressure,
 * so memory stays bounded by the walk's small working set whatever the chain's size.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { Blockstore } from '../../ipld/index.js';
import type { TipSet } from '../../types/index.js';
import { throwIfAborted } from '../../utils/abort.js';
import { writeCarChunked } from './car-writer.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';
import { SnapshotWalk } from './walk.js';

/** Forest's lite snapshots and the spec keep this many epochs of state. */
export const DEFAULT_RECENT_STATE_ROOTS = 2000n;

export interface ExportOptions {
  /**
   * Epochs of state trees to include, counting back from the head (genesis state is always in);
   * 0 gives headers, messages and the genesis state only, as Lotus. `undefined`, or at least the
   * head's height: a full snapshot with every state tree.
   */
  readonly recentStateRoots?: bigint;
  /** Leave out messages older than the state window. */
  readonly skipOldMessages?: boolean;
  readonly onProgress?: (progress: ExportProgress) => void;
  /** Ends the export (an `AbortedError`; no file is left) when it fires: the caller left, the node stops. */
  readonly signal?: AbortSignal | undefined;
}

/** Bytes the export file may hold in its queue before the walk waits for the disk. */
const WRITE_QUEUE_BYTES = 8 << 20;

/** Blocks written between two looks at the abort signal. */
const ABORT_CHECK_BLOCKS = 1024;

export interface ExportProgress {
  /** The lowest epoch walked so far: the export runs from the head down to 0. */
  readonly epoch: bigint;
  readonly headEpoch: bigint;
  readonly blocks: number;
  readonly bytes: number;
}

export interface ExportSummary {
  readonly head: TipSet;
  readonly blocks: number;
  /** Bytes of block data (CIDs and bytes, without CAR framing). */
  readonly bytes: number;
  /** The oldest epoch above genesis whose parent state is in the snapshot. */
  readonly oldestStateEpoch: bigint;
  readonly full: boolean;
}

/** Writes the snapshot of `head` into `destination`, which is ended when done. */
export async function exportSnapshot(
  store: Blockstore,
  head: TipSet,
  destination: Writable,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const recentStateRoots = options.recentStateRoots ?? head.height + 1n;
  if (recentStateRoots < 0n) {
    throw new SnapshotError(SnapshotErrorCode.Export, `recent state roots cannot be negative (${recentStateRoots})`);
  }
  const walk = new SnapshotWalk(store);
  let blocks = 0;
  let bytes = 0;
  let epoch = head.height;
  const floor = head.height - recentStateRoots;
  // The lowest tipset that carries its state: above the floor, and not a null round.
  let oldestWithState = head.height;
  let lastReport = 0;
  const report = () => options.onProgress?.({ epoch, headEpoch: head.height, blocks, bytes });
  function* counted() {
    for (const block of walk.blocks(head, {
      recentStateRoots,
      skipOldMessages: options.skipOldMessages ?? false,
      onHeader: (header) => {
        if (header.height < epoch) epoch = header.height;
        if (header.height > floor && header.height < oldestWithState) oldestWithState = header.height;
      },
    })) {
      // Thrown inside the CAR writer, which destroys the destination.
      if (blocks % ABORT_CHECK_BLOCKS === 0) throwIfAborted(options.signal);
      blocks++;
      bytes += block.cidBytes.length + block.bytes.length;
      if (blocks - lastReport >= 10_000) {
        lastReport = blocks;
        report();
      }
      yield block;
    }
  }
  try {
    await writeCarChunked(destination, head.cids, counted());
  } finally {
    walk.close();
  }
  report();
  return {
    head,
    blocks,
    bytes,
    oldestStateEpoch: floor < 1n ? 1n : oldestWithState,
    full: floor < 1n,
  };
}

/**
 * Exports into `path` through a temporary file renamed into place at the end, so a failed export
 * never leaves a truncated snapshot under the requested name.
 */
export async function exportSnapshotToFile(
  store: Blockstore,
  head: TipSet,
  path: string,
  options: ExportOptions = {},
): Promise<ExportSummary> {
  const partial = `${path}.partial`;
  if (existsSync(path)) throw new SnapshotError(SnapshotErrorCode.Export, `${path} already exists`);
  // A few chunks may queue for the disk while the walk goes on, rather than one at a time.
  const file = createWriteStream(partial, { flags: 'wx', highWaterMark: WRITE_QUEUE_BYTES });
  try {
    const summary = await exportSnapshot(store, head, file, options);
    await rename(partial, path);
    return summary;
  } catch (error) {
    // The file opens asynchronously: an export aborted at once may fail before it exists, and
    // removing it then would leave the one the open creates afterwards.
    if (!file.closed) {
      await new Promise<void>((resolve) => {
        file.once('close', () => resolve());
        file.destroy();
      });
    }
    await rm(partial, { force: true });
    throw error;
  }
}
