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
 * The visited sets stay in memory while small and move to SQLite temporary files past that
 * (`VisitedCids`), so memory stays bounded on any chain. Blocks travel as CID bytes and data, read
 * by the blocks table's key and written to the CAR as they are.
 */
import { CID } from 'multiformats/cid';
import { SqliteBlockstore } from '../../db/index.js';
import { BlockNotFoundError, type Blockstore } from '../../ipld/index.js';
import { forEachLinkBytes } from '../../state/index.js';
import { type BlockHeader, DAG_CBOR_CODE, decodeBlockHeader, type TipSet } from '../../types/index.js';
import { EncodedBlock, exportable, LinkKind, linkKind } from './cid-bytes.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';
import { VisitedCids } from './visited-cids.js';

export interface SnapshotWalkOptions {
  /** State trees are included for epochs above `head.height − recentStateRoots`, and genesis. */
  readonly recentStateRoots: bigint;
  /** Leave out the messages of epochs older than that window too (Lotus `--skip-old-msgs`). */
  readonly skipOldMessages: boolean;
  /** Called after each block header, with its epoch (the walk goes down from the head). */
  readonly onHeader?: (header: BlockHeader) => void;
}

interface Found {
  readonly cid: Uint8Array;
  /** Present for DAG-CBOR blocks, which were read to find their links. */
  readonly bytes?: Uint8Array;
}

/** Reads blocks by CID bytes: straight from SQLite's key, or through a CID for other stores. */
type ReadEncoded = (cid: Uint8Array) => Uint8Array | undefined;

function encodedReader(store: Blockstore): ReadEncoded {
  if (store instanceof SqliteBlockstore) return (cid) => store.getEncoded(cid);
  return (cid) => store.get(CID.decode(cid));
}

export class SnapshotWalk {
  readonly #read: ReadEncoded;
  readonly #seen = new VisitedCids();
  readonly #walked = new VisitedCids();

  constructor(store: Blockstore) {
    this.#read = encodedReader(store);
  }

  /** The blocks of the snapshot of `head`, in Lotus's order. Iterate once; `close` when done. */
  *blocks(head: TipSet, options: SnapshotWalkOptions): Generator<EncodedBlock> {
    const stateFloor = head.height - options.recentStateRoots;
    const queue: CID[] = [...head.cids];
    for (let next = 0; next < queue.length; next++) {
      const cid = queue[next]!;
      // The queue only grows by a tipset's parents per header: drop what was walked now and then.
      if (next >= 4096) {
        queue.splice(0, next);
        next = 0;
      }
      if (!this.#seen.visit(cid.bytes)) continue;
      const bytes = this.#get(cid.bytes, 'block header');
      yield new EncodedBlock(cid.bytes, bytes);
      const header = decodeHeader(cid, bytes);
      options.onHeader?.(header);
      const recent = header.height > stateFloor;
      if ((!options.skipOldMessages || recent) && this.#walked.visit(header.messages.bytes)) {
        yield* this.#emit(this.#dag(header.messages, `messages of block ${cid} (epoch ${header.height})`));
      }
      if (header.height > 0n) queue.push(...header.parents);
      else yield* this.#emit(header.parents.map((parent) => ({ cid: parent.bytes })));
      if (header.height === 0n || recent) {
        if (this.#walked.visit(header.parentStateRoot.bytes)) {
          yield* this.#emit(this.#dag(header.parentStateRoot, `parent state of block ${cid} (epoch ${header.height})`));
        }
        if (this.#walked.visit(header.parentMessageReceipts.bytes)) {
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

  #get(cid: Uint8Array, what: string): Uint8Array {
    const bytes = this.#read(cid);
    if (bytes === undefined) throw new BlockNotFoundError(CID.decode(cid), what);
    return bytes;
  }

  *#emit(found: Iterable<Found>): Generator<EncodedBlock> {
    for (const { cid, bytes } of found) {
      if (!this.#seen.visit(cid)) continue;
      const included = exportable(cid);
      if (included === undefined) {
        throw new SnapshotError(SnapshotErrorCode.Export, 'a block on the chain links to something that is not a CID');
      }
      if (included) yield new EncodedBlock(cid, bytes ?? this.#get(cid, 'linked block'));
    }
  }

  /** `root` (already marked walked), then every newly walked block below it, depth-first pre-order. */
  *#dag(root: CID, what: string): Generator<Found> {
    if (root.code !== DAG_CBOR_CODE) {
      yield { cid: root.bytes };
      return;
    }
    const rootBytes = this.#get(root.bytes, what);
    yield { cid: root.bytes, bytes: rootBytes };
    const stack = [new LinkFrame(rootBytes)];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.links.length) {
        stack.pop();
        continue;
      }
      const start = frame.links[frame.next++]!;
      const end = frame.links[frame.next++]!;
      if (!this.#walked.visit(frame.bytes, start, end)) continue;
      const link = frame.bytes.subarray(start, end);
      if (linkKind(link) !== LinkKind.DagCbor) {
        yield { cid: link };
        continue;
      }
      const bytes = this.#get(link, `a block of the ${what}`);
      yield { cid: link, bytes };
      stack.push(new LinkFrame(bytes));
    }
  }
}

/**
 * A block on a depth-first walk's stack: where its links lie in its bytes (start, end pairs), the
 * next one to follow, and its CID when the walk needs it back.
 */
export class LinkFrame {
  readonly bytes: Uint8Array;
  readonly cid: Uint8Array | undefined;
  readonly links: number[] = [];
  next = 0;

  constructor(bytes: Uint8Array, cid?: Uint8Array) {
    this.bytes = bytes;
    this.cid = cid;
    forEachLinkBytes(bytes, (start, end) => this.links.push(start, end));
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
