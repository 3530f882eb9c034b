/**
 * Chain export over JSON-RPC. Lotus's `ChainExport` streams the CAR back through a channel
 * (WebSocket only); `ChainExportToFile`, like Lotus's `ChainExportRangeInternal`, writes the file
 * on the node's side, at a path the (admin) caller names, and answers when it is complete — the way
 * for clients that speak HTTP only. `ChainExportProgress` reports on an export to a file still
 * running, so the CLI can draw a progress bar. Both write the same CAR with the same writer.
 */
import { isAbsolute } from 'node:path';
import { Writable } from 'node:stream';
import type { ChainStore } from '../../chain/index.js';
import { ExportJobs, type ExportProgress, type ExportSummary, exportSnapshot } from '../../chain/snapshot/index.js';
import { type JsonInteger, jsonFail, readJsonInt64 } from '../../types/index.js';
import { AbortedError } from '../../utils/abort.js';
import { tipSetKeyParam } from '../chain-codecs.js';
import { type ChannelSink, channelResult } from '../channel.js';
import type { ParamDeclaration } from '../method.js';
import { booleanParam } from '../params.js';
import { bytesResult, jsonResult } from '../results.js';
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

/** ChainExport's `nroots` (Lotus `abi.ChainEpoch`). */
const exportRootsParam: ParamDeclaration<bigint, JsonInteger> = {
  name: 'nroots',
  description:
    'epochs of state trees to include back from the tipset (genesis state is always in); 0 for none, at least the height for all',
  schema: { type: 'integer', minimum: 0 },
  decode: (json, path) => {
    const value = readJsonInt64(json, path);
    return value < 0n ? jsonFail(path, 'a non-negative integer', json) : value;
  },
};

/** ChainExportToFile's `nroots`: ChainExport's, or null for all. */
const recentRootsParam: ParamDeclaration<bigint | null, JsonInteger | null> = {
  name: 'nroots',
  description: 'epochs of state trees to include back from the tipset (genesis state is always in); null for all',
  schema: { oneOf: [exportRootsParam.schema, { type: 'null' }] },
  decode: (json, path) => (json === null ? null : exportRootsParam.decode(json, path)),
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

/** Lotus sends the CAR in values of at most 1 MiB (filecoin-project/lotus node/impl/full/chain.go, ChainExport). */
const EXPORT_VALUE_BYTES = 1 << 20;

/**
 * A Writable that passes what the CAR writer writes to a channel, in values of at most 1 MiB, each
 * sent once the channel has room: the export goes at its client's pace, holding at most the
 * channel's buffer. It fails once the channel has ended (the client cancelled or left).
 */
function channelWritable(sink: ChannelSink<Uint8Array>): Writable {
  const deliver = async (chunk: Uint8Array) => {
    for (let at = 0; at < chunk.length; at += EXPORT_VALUE_BYTES) {
      await sink.writable();
      if (sink.signal.aborted) throw new AbortedError(sink.signal.reason);
      sink.send(chunk.subarray(at, at + EXPORT_VALUE_BYTES));
    }
  };
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      deliver(chunk).then(() => done(), done);
    },
  });
}

export const chainExport = declareChainMethod({
  name: 'ChainExport',
  description:
    'A channel (WebSocket only) of a chain snapshot, CAR v1 in Lotus’s block order (roots = the tipset’s blocks), as base64 values of at most 1 MiB: every header back to genesis, state trees for the last nroots epochs and genesis, messages (old ones left out with oldmsgskip). An empty value marks the complete end; a channel that closes without it was cut short.',
  // Lotus's tag (filecoin-project/lotus api/api_full.go).
  permission: 'read',
  params: [
    exportRootsParam,
    booleanParam('oldmsgskip', 'leave out messages older than the state window'),
    tipSetKeyParam('tsk', 'the tipset to export from; null or [] for the head'),
  ],
  // Lotus's channel is unbuffered; the export waits for room in ours, so a few values are in flight at most.
  result: channelResult(bytesResult('CAR bytes'), { buffer: 4 }),
  handler: ([nroots, skipOldMessages, key], { chain }) => {
    const head = chain.store.tipSetOrHead(key);
    return (sink) => {
      void (async () => {
        try {
          await exportSnapshot(chain.store.blockstore, head, channelWritable(sink), {
            recentStateRoots: nroots,
            skipOldMessages,
            signal: sink.signal,
          });
          await sink.writable();
          // Lotus's end marker: `lotus chain export` calls an export without it incomplete.
          sink.send(new Uint8Array(0));
        } catch {
          // Cut short (cancelled, the client left, the node stops, a block missing): the channel
          // closes without the end marker, which tells the client the CAR is incomplete.
        } finally {
          sink.close();
        }
      })();
    };
  },
});

export const snapshotMethods = [chainExport, chainExportToFile, chainExportProgress];
