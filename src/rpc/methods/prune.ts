/**
 * ChainPrune (filecoin-project/lotus `api/api_full.go`, admin): drops state trees and receipts
 * older than a window of epochs from the head, keeping every header and message
 * (src/chain/prune.ts, docs/operations.md). Lotus's `PruneOpts` is accepted as Lotus sends it —
 * `RetainState` counts finalities (negative: keep all state), `MovingGC` has no meaning for one
 * SQLite file and is ignored — and `Window`, in epochs, is ours and wins. Lotus answers nothing;
 * we answer what the prune removed (a Lotus client ignores it).
 */
import type { PruneSummary } from '../../chain/index.js';
import { type JsonObject, jsonFail, jsonField, readJsonInt64, readJsonObject } from '../../types/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import type { ParamDeclaration } from '../method.js';
import { jsonResult } from '../results.js';
import { declareChainMethod } from './chain.js';

export interface PruneOptsRequest {
  /** Epochs of state to keep; undefined: from RetainState, else the node's configured window. */
  readonly window: bigint | undefined;
  /** Lotus's RetainState: finalities of state to keep; negative keeps all, 0 means unset. */
  readonly retainState: bigint;
}

export interface PruneSummaryJson {
  HeadEpoch: number;
  OldestStateEpoch: number;
  MarkedBlocks: number;
  WrittenMeanwhile: number;
  ScannedBlocks: number;
  DeletedBlocks: number;
  DeletedBytes: number;
  /** The database's pages in use (its file does not shrink; SQLite reuses the freed pages). */
  UsedBytesBefore: number;
  UsedBytesAfter: number;
  FileBytes: number;
  Milliseconds: number;
}

const pruneOptsParam: ParamDeclaration<PruneOptsRequest, JsonObject> = {
  name: 'opts',
  description:
    'Lotus PruneOpts {MovingGC (ignored), RetainState (finalities of state kept; negative: all)}, and Window (epochs of state kept; wins over RetainState). Neither: the node’s configured window',
  schema: {
    type: 'object',
    properties: {
      MovingGC: { type: 'boolean' },
      RetainState: { type: 'integer' },
      Window: { type: 'integer', minimum: 1 },
    },
  },
  decode: (json, path) => {
    const object = readJsonObject(json, path);
    const window = jsonField(object, 'Window');
    const decoded = window === undefined || window === null ? undefined : readJsonInt64(window, `${path}.Window`);
    if (decoded !== undefined && decoded < 1n) jsonFail(`${path}.Window`, 'a positive number of epochs', window);
    return { window: decoded, retainState: readJsonInt64(jsonField(object, 'RetainState'), `${path}.RetainState`) };
  },
};

function summaryToJson(summary: PruneSummary): PruneSummaryJson {
  return {
    HeadEpoch: Number(summary.head),
    OldestStateEpoch: Number(summary.oldestStateEpoch),
    MarkedBlocks: summary.marked,
    WrittenMeanwhile: summary.writtenMeanwhile,
    ScannedBlocks: summary.scanned,
    DeletedBlocks: summary.deleted,
    DeletedBytes: summary.deletedBytes,
    UsedBytesBefore: summary.before.usedBytes,
    UsedBytesAfter: summary.after.usedBytes,
    FileBytes: summary.after.fileBytes,
    Milliseconds: summary.ms,
  };
}

export const chainPrune = declareChainMethod({
  name: 'ChainPrune',
  description:
    'Prunes state trees and receipts older than a window of epochs below the head (headers and messages are kept; genesis state too), online, and answers what was removed. Older state is then refused with ERR_STATE_NOT_AVAILABLE.',
  permission: 'admin',
  params: [pruneOptsParam],
  result: jsonResult<PruneSummaryJson>('summary', 'what the prune kept and removed, and the database size', {
    type: 'object',
  }),
  handler: async ([opts], { chain }, call) => {
    const pruner = chain.pruner;
    if (pruner === undefined) throw new InvalidArgumentError('ChainPrune: this node has no pruner for its chain');
    let window = opts.window;
    if (window === undefined && opts.retainState < 0n) window = chain.store.head().height + 1n;
    if (window === undefined && opts.retainState > 0n) window = opts.retainState * chain.params.chainFinality;
    return summaryToJson(await pruner.prune({ window: window ?? pruner.window, signal: call.signal }));
  },
});

export const pruneMethods = [chainPrune];
