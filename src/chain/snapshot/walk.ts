/**
 * The block order of a Lotus v1 snapshot (`ChainStore.WalkSnapshot`, filecoin-project/lotus
 * `chain/store/snapshot.go`): headers breadth-first from the head's blocks back to genesis; after
 * each header, its messages (TxMeta and the DAG below it, depth-first in link order) unless they
 * are old and skipped, the genesis parent at height 0, then — for genesis and the recent epochs —
 * the parent state tree and the receipts, each depth-first. Every block appears once; identity CIDs
 * and codecs other than raw, CBOR and DAG-CBOR are skipped.
 *
 * One deviation: Lotus writes only the root of each receipts AMT; we write the whole AMT, so a
 * node started from the snapshot can answer receipt queries.
 *
 * The visited sets are SQLite temporary files (`DiskCidSet`), so memory stays bounded on any chain.
 */
import type { CID } from 'multiformats/cid';
import { DiskCidSet } from '../../db/index.js';
import { type Block, type Blockstore, getBlock } from '../../ipld/index.js';
import { blockLinks } from '../../state/index.js';
import { type BlockHeader, DAG_CBOR_CODE, decodeBlockHeader, type TipSet } from '../../types/index.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';

const RAW_CODE = 0x55;
const CBOR_CODE = 0x51;
const IDENTITY_CODE = 0x00;

export interface SnapshotWalkOptions {
  /** State trees are included for epochs above `head.height − recentStateRoots`, and genesis. */
  readonly recentStateRoots: bigint;
  /** Leave out the messages of epochs older than that window too (Lotus `--skip-old-msgs`). */
  readonly skipOldMessages: boolean;
  /** Called after each block header, with its epoch (the walk goes down from the head). */
  readonly onHeader?: (header: BlockHeader) => void;
}

interface Found {
  readonly cid: CID;
  /** Present for DAG-CBOR blocks, which were read to find their links. */
  readonly bytes?: Uint8Array;
}

function exportable(cid: CID): boolean {
  if (cid.multihash.code === IDENTITY_CODE) return false;
  return cid.code === DAG_CBOR_CODE || cid.code === RAW_CODE || cid.code === CBOR_CODE;
}

export class SnapshotWalk {
  readonly #store: Blockstore;
  readonly #seen = new DiskCidSet();
  readonly #walked = new DiskCidSet();

  constructor(store: Blockstore) {
    this.#store = store;
  }

  /** The blocks of the snapshot of `head`, in Lotus's order. Iterate once; `close` when done. */
  *blocks(head: TipSet, options: SnapshotWalkOptions): Generator<Block> {
    const stateFloor = head.height - options.recentStateRoots;
    const queue: CID[] = [...head.cids];
    for (let next = 0; next < queue.length; next++) {
      const cid = queue[next]!;
      // The queue only grows by a tipset's parents per header: drop what was walked now and then.
      if (next >= 4096) {
        queue.splice(0, next);
        next = 0;
      }
      if (!this.#seen.visit(cid)) continue;
      const bytes = getBlock(this.#store, cid, 'block header');
      yield { cid, bytes };
      const header = decodeHeader(cid, bytes);
      options.onHeader?.(header);
      const recent = header.height > stateFloor;
      if ((!options.skipOldMessages || recent) && this.#walked.visit(header.messages)) {
        yield* this.#emit(this.#dag(header.messages, `messages of block ${cid} (epoch ${header.height})`));
      }
      if (header.height > 0n) queue.push(...header.parents);
      else yield* this.#emit(header.parents.map((parent) => ({ cid: parent })));
      if (header.height === 0n || recent) {
        if (this.#walked.visit(header.parentStateRoot)) {
          yield* this.#emit(this.#dag(header.parentStateRoot, `parent state of block ${cid} (epoch ${header.height})`));
        }
        if (this.#walked.visit(header.parentMessageReceipts)) {
          yield* this.#emit(
            this.#dag(header.parentMessageReceipts, `parent receipts of block ${cid} (epoch ${header.height})`),
          );
        }
      }
    }
  }

  close(): void {
    this.#seen.close();
    this.#walked.close();
  }

  *#emit(found: Iterable<Found>): Generator<Block> {
    for (const { cid, bytes } of found) {
      if (!this.#seen.visit(cid) || !exportable(cid)) continue;
      yield { cid, bytes: bytes ?? getBlock(this.#store, cid, 'linked block') };
    }
  }

  /** `root` (already marked walked), then every newly walked block below it, depth-first pre-order. */
  *#dag(root: CID, what: string): Generator<Found> {
    if (root.code !== DAG_CBOR_CODE) {
      yield { cid: root };
      return;
    }
    const rootBytes = getBlock(this.#store, root, what);
    yield { cid: root, bytes: rootBytes };
    const stack: { links: CID[]; next: number }[] = [{ links: blockLinks(root, rootBytes), next: 0 }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.links.length) {
        stack.pop();
        continue;
      }
      const link = frame.links[frame.next++]!;
      if (!this.#walked.visit(link)) continue;
      if (link.code !== DAG_CBOR_CODE) {
        yield { cid: link };
        continue;
      }
      const bytes = getBlock(this.#store, link, `a block of the ${what}`);
      yield { cid: link, bytes };
      stack.push({ links: blockLinks(link, bytes), next: 0 });
    }
  }
}

function decodeHeader(cid: CID, bytes: Uint8Array): BlockHeader {
  try {
    return decodeBlockHeader(bytes);
  } catch (error) {
    throw new SnapshotError(SnapshotErrorCode.Export, `block ${cid} on the chain is not a block header`, {
      cause: error,
    });
  }
}
