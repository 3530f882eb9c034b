/**
 * Chain export over JSON-RPC. Lotus's `ChainExport` streams the CAR back through a channel, which
 * plain HTTP JSON-RPC cannot carry; like Lotus's `ChainExportRangeInternal`, ours writes the file
 * on the node's side, at a path the (admin) caller names, and answers when it is complete.
 * `ChainExportProgress` reports on an export still running, so the CLI can draw a progress bar.
 */
import { isAbsolute } from 'node:path';
import type { ChainStore } from '../../chain/index.js';
import { ExportJobs, type ExportProgress, type ExportSummary } from '../../chain/snapshot/index.js';
import { type JsonInteger, jsonFail, readJsonInt64 } from '../../types/index.js';
import { tipSetKeyParam } from '../chain-codecs.js';
import type { ParamDeclaration } from '../method.js';
import { booleanParam } from '../params.js';
import { jsonResult } from '../results.js';
import { declareChainMethod } from './chain.js';

const jobsByChain = new WeakMap<ChainStore, ExportJobs>();

function jobsOf(store: ChainStore): ExportJobs {
  let jobs = jobsByChain.get(store);
  if (jobs === undefined) {
    jobs = new ExportJobs();
    jobsByChain.set(store, jobs);
  }
  return jobs;
}

const pathParam: ParamDeclaration<string, string> = {
  name: 'path',
  description: 'absolute path of the CAR file to write on the node’s machine; must not exist',
  schema: { type: 'string' },
  decode: (json, path) => {
    if (typeof json !== 'string' || !isAbsolute(json)) jsonFail(path, 'an absolute file path', json);
    return json;
  },
};

const recentRootsParam: ParamDeclaration<bigint | null, JsonInteger | null> = {
  name: 'nroots',
  description: 'epochs of state trees to include back from the tipset (genesis state is always in); null for all',
  schema: { oneOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }] },
  decode: (json, path) => {
    if (json === null) return null;
    const value = readJsonInt64(json, path);
    return value < 0n ? jsonFail(path, 'a non-negative integer or null', json) : value;
  },
};

const skipOldMessagesParam = booleanParam('skipoldmsgs', 'leave out messages older than the state window');

export interface ExportSummaryJson {
  Path: string;
  Head: { '/': string }[];
  Height: number;
  Blocks: number;
  Bytes: number;
  OldestStateEpoch: number;
  Full: boolean;
}

export interface ExportProgressJson {
  HeadEpoch: number;
  Epoch: number;
  Blocks: number;
  Bytes: number;
}

function summaryToJson(path: string, summary: ExportSummary): ExportSummaryJson {
  return {
    Path: path,
    Head: summary.head.cids.map((cid) => ({ '/': cid.toString() })),
    Height: Number(summary.head.height),
    Blocks: summary.blocks,
    Bytes: summary.bytes,
    OldestStateEpoch: Number(summary.oldestStateEpoch),
    Full: summary.full,
  };
}

function progressToJson(progress: ExportProgress): ExportProgressJson {
  return {
    HeadEpoch: Number(progress.headEpoch),
    Epoch: Number(progress.epoch),
    Blocks: progress.blocks,
    Bytes: progress.bytes,
  };
}

export const chainExportToFile = declareChainMethod({
  name: 'ChainExportToFile',
  description:
    'Writes a chain snapshot (CAR v1, Lotus’s block order, roots = the tipset’s blocks) to a file on the node: every header back to genesis, state trees for the last nroots epochs (all when null) and genesis, messages (old ones left out with skipoldmsgs). Answers when the file is complete.',
  permission: 'admin',
  params: [
    pathParam,
    recentRootsParam,
    skipOldMessagesParam,
    tipSetKeyParam('tsk', 'the tipset to export from; null or [] for the head'),
  ],
  result: jsonResult<ExportSummaryJson>('summary', 'what was written: head, blocks, bytes, oldest epoch with state', {
    type: 'object',
  }),
  handler: async ([path, nroots, skipOldMessages, key], { chain }, call) => {
    const head = chain.store.tipSetOrHead(key);
    const summary = await jobsOf(chain.store).run(chain.store.blockstore, head, path, {
      ...(nroots === null ? {} : { recentStateRoots: nroots }),
      skipOldMessages,
      signal: call.signal,
    });
    return summaryToJson(path, summary);
  },
});

export const chainExportProgress = declareChainMethod({
  name: 'ChainExportProgress',
  description:
    'Reports on a ChainExportToFile still writing to a path: the epoch reached walking down from the head, blocks and bytes so far; null when none runs.',
  permission: 'admin',
  params: [pathParam],
  result: jsonResult<ExportProgressJson | null>('progress', 'the export’s progress, or null', {
    oneOf: [{ type: 'object' }, { type: 'null' }],
  }),
  handler: ([path], { chain }) => {
    const progress = jobsOf(chain.store).progress(path);
    return progress === undefined ? null : progressToJson(progress);
  },
});

export const snapshotMethods = [chainExportToFile, chainExportProgress];
