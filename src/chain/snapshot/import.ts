/**
 * Snapshot import (`ledger daemon --import-snapshot` / `--import-chain`, as Lotus's in
 * filecoin-project/lotus `cli/lotus/daemon.go` and `chain/store/snapshot.go`): the CAR streams into
 * the blockstore inside one database transaction, then is validated and indexed before that
 * transaction commits, so a corrupt, truncated or foreign file leaves the repo as it was.
 *
 * Checks, beyond Lotus's (which trusts the state of `--import-snapshot`):
 * - every block's bytes hash to its CID (so every header CID matches its header);
 * - the roots are the blocks of one tipset (v1), or name them in a SnapshotMetadata block (v2, as
 *   Lotus's ExportV2 and Forest write), and the header chain links tipset by tipset down to
 *   a genesis block (Lotus exports every header back to genesis);
 * - the head's parent state tree is complete, and so is every state tree of the contiguous window
 *   below it that the snapshot holds (and genesis's); `--import-chain` requires that window to
 *   reach genesis: a full snapshot;
 * - each included TxMeta's messages and each included receipts AMT are complete.
 *
 * Completeness is proven while the file streams in whenever it can be (`StreamedLinks`): then a
 * DAG's root being present settles it, and no block is read back. Otherwise each DAG is walked from
 * the database (`DagChecker`), with the same verdicts.
 *
 * Indexing writes what the chain store reads: tipsets with weights (a child's ParentWeight is its
 * parent's weight; the head's is computed from its parent state), the canonical chain, each tipset
 * state the snapshot holds (a child's ParentStateRoot and ParentMessageReceipts), message
 * inclusions, the genesis and head, and the oldest epoch with state (`state-window.ts`).
 */
import { CID } from 'multiformats/cid';
import { type BlockStaging, DiskCidSet, type LedgerDatabase, type SqliteBlockstore } from '../../db/index.js';
import type { Blockstore } from '../../ipld/index.js';
import type { NetworkParams } from '../../params/index.js';
import { type BlockHeader, decodeBlockHeader, decodeCbor, TipSet, TipSetKey } from '../../types/index.js';
import { nextTurn } from '../../utils/abort.js';
import { blockMessageCids } from '../block-messages.js';
import { tipSetWeight } from '../weight.js';
import { CarSectionError, readCarSections } from './car-reader.js';
import { LinkKind, linkKind } from './cid-bytes.js';
import { SnapshotError, SnapshotErrorCode } from './errors.js';
import { openSnapshotSource, type SnapshotSource } from './source.js';
import { CHAIN_GENESIS_META, CHAIN_HEAD_META, recordOldestStateEpoch } from './state-window.js';
import { isHeaderShaped, MAX_BLOCKS_BEFORE, StreamedLinks } from './streamed-links.js';
import { LinkFrame } from './walk.js';

const YIELD_EVERY_TIPSETS = 500;
/** SQLite's page cache while a snapshot is imported (better-sqlite3's default is 16 MiB); memory stays bounded by it. */
export const IMPORT_PAGE_CACHE_MIB = 32;

/** `snapshot`: a minimal or full snapshot (Lotus `--import-snapshot`); `chain`: full only (`--import-chain`). */
export type ImportMode = 'snapshot' | 'chain';

export interface ImportOptions {
  readonly mode: ImportMode;
  readonly params: NetworkParams;
  /** The genesis the node's network has; a snapshot of another chain is refused. */
  readonly expectedGenesis?: CID | undefined;
  readonly onProgress?: ((progress: ImportProgress) => void) | undefined;
}

export interface ImportProgress {
  /** `reading`: blocks stream in; `validating`: the header chain and state trees are checked. */
  readonly phase: 'reading' | 'validating';
  /** Bytes of the file read so far (compressed bytes for `.car.zst`). */
  readonly bytesRead: number;
  readonly totalBytes: number;
  readonly blocks: number;
  /** While validating: the epoch reached, walking down from `headEpoch`. */
  readonly epoch?: bigint;
  readonly headEpoch?: bigint;
}

export interface ImportSummary {
  readonly head: TipSet;
  readonly genesis: CID;
  readonly blocks: number;
  readonly fileBytes: number;
  readonly compressed: boolean;
  readonly tipSets: number;
  /** The oldest epoch (above genesis) whose state the node now holds; 1 or less for a full snapshot. */
  readonly oldestStateEpoch: bigint;
  readonly full: boolean;
  /**
   * How the DAGs were found complete: proven while the file streamed in, or each walked from the
   * database afterwards, and why (see streamed-links.ts).
   */
  readonly completeness: { readonly by: 'stream' } | { readonly by: 'walk'; readonly because: string };
}

/** Imports the snapshot at `path` into `db`, which must hold no chain yet, or only its genesis. */
export async function importSnapshot(db: LedgerDatabase, path: string, options: ImportOptions): Promise<ImportSummary> {
  const existingHead = db.chainIndex.getMeta(CHAIN_HEAD_META);
  const existingGenesis = db.chainIndex.getMeta(CHAIN_GENESIS_META);
  // A repo holding only its genesis (a node that joined a network and has not synced) may import.
  const onlyGenesis =
    existingHead !== undefined &&
    existingGenesis !== undefined &&
    bytesMatch(existingHead, TipSetKey.fromCids([CID.decode(existingGenesis)]).bytes);
  if (existingHead !== undefined && !onlyGenesis) {
    throw new SnapshotError(
      SnapshotErrorCode.RepoHasChain,
      `the repo already holds a chain beyond its genesis; import snapshot ${path} into a new repo`,
    );
  }
  const source = await openSnapshotSource(path);
  return db.exclusiveTransaction(
    async () => {
      const store = db.blockstore;
      const before = store.someCids(MAX_BLOCKS_BEFORE + 1);
      const staging = store.stage();
      const links = new StreamedLinks(
        (cid) => staging.firstByte(cid),
        before.length > MAX_BLOCKS_BEFORE ? undefined : before,
      );
      const { roots, blocks } = await readBlocks(staging, links, source, options.onProgress);
      staging.commit();
      const report = (epoch: bigint, headEpoch: bigint) =>
        options.onProgress?.({
          phase: 'validating',
          bytesRead: source.bytesRead(),
          totalBytes: source.size,
          blocks,
          epoch,
          headEpoch,
        });
      const doubt = links.doubt;
      const indexed = await indexChain(db, roots, doubt === undefined, options, report, path);
      const completeness = doubt === undefined ? { by: 'stream' as const } : { by: 'walk' as const, because: doubt };
      return { ...indexed, blocks, fileBytes: source.size, compressed: source.compressed, completeness };
    },
    { cacheMiB: IMPORT_PAGE_CACHE_MIB },
  );
}

async function readBlocks(
  store: BlockStaging,
  links: StreamedLinks,
  source: SnapshotSource,
  onProgress: ImportOptions['onProgress'],
): Promise<{ roots: readonly CID[]; blocks: number }> {
  let blocks = 0;
  try {
    const car = await readCarSections(source.chunks(), source.path);
    for await (const batch of car.batches) {
      for (const section of batch) links.add(section);
      store.putMany(batch);
      links.endBatch();
      blocks += batch.length;
      onProgress?.({ phase: 'reading', bytesRead: source.bytesRead(), totalBytes: source.size, blocks });
    }
    return { roots: car.roots, blocks };
  } catch (error) {
    if (error instanceof CarSectionError) {
      throw new SnapshotError(
        SnapshotErrorCode.Corrupt,
        `snapshot ${source.path} is corrupt or truncated after ${blocks} blocks: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Checks that every block below a root is present. When the stream proved every DAG below a
 * non-header block complete (`StreamedLinks`), a root's presence settles it; otherwise each DAG is
 * walked from the database, once per block across all calls.
 */
class DagChecker {
  readonly #store: SqliteBlockstore;
  readonly #proven: boolean;
  readonly #checked = new DiskCidSet();

  constructor(store: SqliteBlockstore, proven: boolean) {
    this.#store = store;
    this.#proven = proven;
  }

  /** The first missing block below `root` (root included), or undefined when the DAG is complete. */
  missingBelow(root: CID): CID | undefined {
    if (linkKind(root.bytes) === LinkKind.Skipped) return undefined;
    if (this.#proven) {
      const first = this.#store.firstByte(root.bytes);
      if (first === undefined) return root;
      if (!isHeaderShaped(root.code, first)) return undefined;
    }
    return this.#walk(root);
  }

  /**
   * Depth-first, marking a block checked only once everything below it is (post-order): a walk
   * that stops at a missing block leaves no block marked whose DAG was not seen whole, so a later
   * walk through the same blocks (another state tree) still finds what is missing.
   */
  #walk(root: CID): CID | undefined {
    const stack: LinkFrame[] = [];
    const enter = (cid: Uint8Array): CID | undefined => {
      const kind = linkKind(cid);
      if (kind === LinkKind.Skipped || this.#checked.hasBytes(cid)) return undefined;
      if (kind === LinkKind.Invalid) {
        throw new SnapshotError(SnapshotErrorCode.Corrupt, `a block below ${root} holds a link that is not a CID`);
      }
      if (kind === LinkKind.Raw) {
        if (this.#store.firstByte(cid) === undefined) return CID.decode(cid);
        this.#checked.visitBytes(cid);
        return undefined;
      }
      const bytes = this.#store.getEncoded(cid);
      if (bytes === undefined) return CID.decode(cid);
      stack.push(new LinkFrame(bytes, cid));
      return undefined;
    };
    const missingRoot = enter(root.bytes);
    if (missingRoot !== undefined) return missingRoot;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.links.length) {
        const start = frame.links[frame.next++]!;
        const missing = enter(frame.bytes.subarray(start, frame.links[frame.next++]!));
        if (missing !== undefined) return missing;
        continue;
      }
      stack.pop();
      this.#checked.visitBytes(frame.cid!);
    }
    return undefined;
  }

  close(): void {
    this.#checked.close();
  }
}

function loadTipSet(store: Blockstore, cids: readonly CID[], below: bigint, path: string): TipSet {
  const headers: BlockHeader[] = cids.map((cid) => {
    const bytes = store.get(cid);
    if (bytes === undefined) {
      throw new SnapshotError(
        SnapshotErrorCode.Incomplete,
        `snapshot ${path}: the header chain breaks below epoch ${below}: parent block ${cid} is missing`,
      );
    }
    try {
      return decodeBlockHeader(bytes);
    } catch (error) {
      throw new SnapshotError(
        SnapshotErrorCode.Corrupt,
        `snapshot ${path}: parent block ${cid} of epoch ${below} is not a block header: ${(error as Error).message}`,
        { cause: error },
      );
    }
  });
  return TipSet.fromHeaders(headers);
}

/**
 * The head of a v2 snapshot (Lotus `ExportV2`, Forest's default, FRC-0108): its one root is a
 * SnapshotMetadata map `{Version: 2, HeadTipsetKey: [CID…], F3Data: CID | null}`. Undefined for v1.
 */
function snapshotMetadataHead(store: Blockstore, roots: readonly CID[]): readonly CID[] | undefined {
  const bytes = roots.length === 1 ? store.get(roots[0]!) : undefined;
  if (bytes === undefined) return undefined;
  let value: unknown;
  try {
    value = decodeCbor(bytes);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { Version: version, HeadTipsetKey: key } = value as Record<string, unknown>;
  if (version !== 2 || !Array.isArray(key) || key.length === 0) return undefined;
  const cids = key.map((item) => CID.asCID(item));
  return cids.every((cid) => cid !== null) ? (cids as CID[]) : undefined;
}

function loadHead(store: Blockstore, carRoots: readonly CID[], path: string): TipSet {
  if (carRoots.length === 0) {
    throw new SnapshotError(
      SnapshotErrorCode.NotASnapshot,
      `snapshot ${path} has no roots: it is not a chain snapshot`,
    );
  }
  const roots = snapshotMetadataHead(store, carRoots) ?? carRoots;
  const headers = roots.map((cid) => {
    const bytes = store.get(cid);
    if (bytes === undefined) {
      throw new SnapshotError(
        SnapshotErrorCode.Incomplete,
        `snapshot ${path}: its root block ${cid} is not in the file`,
      );
    }
    try {
      return decodeBlockHeader(bytes);
    } catch (error) {
      throw new SnapshotError(
        SnapshotErrorCode.NotASnapshot,
        `snapshot ${path}: root ${cid} is not a block header, so the file is not a chain snapshot (${(error as Error).message})`,
        { cause: error },
      );
    }
  });
  try {
    return TipSet.fromHeaders(headers);
  } catch (error) {
    throw new SnapshotError(
      SnapshotErrorCode.NotASnapshot,
      `snapshot ${path}: its roots do not form a tipset: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

async function indexChain(
  db: LedgerDatabase,
  roots: readonly CID[],
  dagsProven: boolean,
  options: ImportOptions,
  report: (epoch: bigint, headEpoch: bigint) => void,
  path: string,
): Promise<Omit<ImportSummary, 'blocks' | 'fileBytes' | 'compressed' | 'completeness'>> {
  const store = db.blockstore;
  const index = db.chainIndex;
  const head = loadHead(store, roots, path);
  const dags = new DagChecker(store, dagsProven);
  try {
    const missingHeadState = dags.missingBelow(head.parentStateRoot);
    if (missingHeadState !== undefined) {
      throw new SnapshotError(
        SnapshotErrorCode.Incomplete,
        `snapshot ${path}: the state tree of its head (epoch ${head.height}, state root ${head.parentStateRoot}) ` +
          `is not complete: block ${missingHeadState} is missing`,
      );
    }
    const headWeight = tipSetWeight(store, head, options.params);

    let current = head;
    let child: TipSet | undefined;
    let inWindow = true;
    let oldestStateEpoch = head.height;
    let tipSets = 0;
    for (;;) {
      tipSets++;
      const weight = child === undefined ? headWeight : child.parentWeight;
      index.putTipSet({ key: current.key, height: current.height, parents: current.parents, weight });
      index.setCanonical(current.height, current.key);
      // The state after `current` is its child's parent state: known when the child is in the window.
      if (child !== undefined && inWindow && dags.missingBelow(child.parentMessageReceipts) === undefined) {
        index.putTipSetState(current.key, {
          stateRoot: child.parentStateRoot,
          receiptsRoot: child.parentMessageReceipts,
        });
      }
      const hasState = dags.missingBelow(current.parentStateRoot) === undefined;
      if (current.height === 0n) {
        if (!hasState) {
          throw new SnapshotError(
            SnapshotErrorCode.Incomplete,
            `snapshot ${path}: the genesis state tree ${current.parentStateRoot} is missing or incomplete`,
          );
        }
        index.putTipSetState(current.key, {
          stateRoot: current.parentStateRoot,
          receiptsRoot: current.parentMessageReceipts,
        });
        break;
      }
      if (inWindow && hasState) oldestStateEpoch = current.height;
      else inWindow = false;
      const parent = loadTipSet(store, current.parents.cids, current.height, path);
      if (!parent.key.equals(current.parents) || parent.height >= current.height) {
        throw new SnapshotError(
          SnapshotErrorCode.Corrupt,
          `snapshot ${path}: the parents of epoch ${current.height} (${current.parents}) do not form the tipset they name`,
        );
      }
      child = current;
      current = parent;
      if (tipSets % YIELD_EVERY_TIPSETS === 0) {
        report(current.height, head.height);
        await nextTurn(undefined);
      }
    }
    const genesis = current;
    const genesisCid = genesis.cids[0]!;
    checkGenesis(db, genesisCid, options.expectedGenesis, path);
    const full = inWindow;
    if (options.mode === 'chain' && !full) {
      throw new SnapshotError(
        SnapshotErrorCode.Incomplete,
        `snapshot ${path} is not a full snapshot: it holds state trees only from epoch ${oldestStateEpoch} on; ` +
          'import it with --import-snapshot',
      );
    }
    await indexMessages(db, dags, genesis, head, path);
    index.setMeta(CHAIN_GENESIS_META, genesisCid.bytes);
    index.setMeta(CHAIN_HEAD_META, head.key.bytes);
    if (!full) recordOldestStateEpoch(db, oldestStateEpoch);
    report(0n, head.height);
    return { head, genesis: genesisCid, tipSets, oldestStateEpoch: full ? 1n : oldestStateEpoch, full };
  } finally {
    dags.close();
  }
}

function checkGenesis(db: LedgerDatabase, genesis: CID, expected: CID | undefined, path: string): void {
  const recorded = db.chainIndex.getMeta(CHAIN_GENESIS_META);
  for (const [want, whose] of [
    [expected?.bytes, 'the node’s network'],
    [recorded, 'the repo'],
  ] as const) {
    if (want !== undefined && !bytesMatch(want, genesis.bytes)) {
      throw new SnapshotError(
        SnapshotErrorCode.GenesisMismatch,
        `snapshot ${path} is of the chain of genesis ${genesis}, not of ${whose}`,
      );
    }
  }
}

function bytesMatch(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Records which canonical tipset included each message, going up from genesis so that the first
 * inclusion wins, as the chain store records them. Tipsets whose messages the snapshot left out
 * (`--skip-old-msgs`) are skipped.
 */
async function indexMessages(
  db: LedgerDatabase,
  dags: DagChecker,
  genesis: TipSet,
  head: TipSet,
  path: string,
): Promise<void> {
  const store = db.blockstore;
  for (let at = { height: genesis.height, key: genesis.key }; ; ) {
    const tipSet = at.height === head.height ? head : loadTipSet(store, at.key.cids, at.height + 1n, path);
    if (tipSet.blocks.every((header) => store.has(header.messages))) {
      const messages: CID[] = [];
      for (const header of tipSet.blocks) {
        const missing = dags.missingBelow(header.messages);
        if (missing !== undefined) {
          throw new SnapshotError(
            SnapshotErrorCode.Incomplete,
            `snapshot ${path}: the messages of epoch ${tipSet.height} are incomplete: block ${missing} is missing`,
          );
        }
        const { bls, secp } = blockMessageCids(store, header);
        messages.push(...bls, ...secp);
      }
      db.chainIndex.putMessageInclusions(tipSet.key, tipSet.height, messages);
    }
    const next = db.chainIndex.canonicalAbove(at.height);
    if (next === undefined || next.height > head.height) return;
    at = next;
    if (next.height % BigInt(YIELD_EVERY_TIPSETS) === 0n) await nextTurn(undefined);
  }
}
