/**
 * The exports a node is running, so that `ChainExportProgress` can report on an export that
 * `ChainExportToFile` is still writing (the CLI polls it to draw its progress bar). One job per
 * destination path at a time.
 */
import type { Blockstore } from '../../ipld/index.js';
import type { TipSet } from '../../types/index.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';
import { type ExportOptions, type ExportProgress, type ExportSummary, exportSnapshotToFile } from './export.js';

export class ExportJobs {
  readonly #running = new Map<string, ExportProgress>();

  async run(store: Blockstore, head: TipSet, path: string, options: ExportOptions = {}): Promise<ExportSummary> {
    if (this.#running.has(path)) {
      throw new SnapshotError(SnapshotErrorCode.Export, `an export to ${path} is already running`);
    }
    this.#running.set(path, { epoch: head.height, headEpoch: head.height, blocks: 0, bytes: 0 });
    try {
      return await exportSnapshotToFile(store, head, path, {
        ...options,
        onProgress: (progress) => {
          this.#running.set(path, progress);
          options.onProgress?.(progress);
        },
      });
    } finally {
      this.#running.delete(path);
    }
  }

  /** The progress of the export to `path`, or undefined when none is running. */
  progress(path: string): ExportProgress | undefined {
    return this.#running.get(path);
  }
}
