/**
 * The bad-block cache (Lotus `BadBlockCache`, 2^15 entries): blocks that failed validation and
 * why, so a chain linked to one is refused without fetching it again. `SyncMarkBad` adds to it,
 * `SyncCheckBad` reads it, `SyncUnmarkBad` removes an entry and `SyncUnmarkAllBad` all of them.
 */
import type { CID } from 'multiformats/cid';
import { LruCache } from '../utils/lru-cache.js';

export const BAD_BLOCK_CACHE_SIZE = 1 << 15;

export interface BadBlockReason {
  readonly reason: string;
  /** The bad block this one descends from, when it was refused for its ancestry. */
  readonly origin?: string;
}

export class BadBlockCache {
  readonly #entries = new LruCache<string, BadBlockReason>(BAD_BLOCK_CACHE_SIZE);

  add(cid: CID, reason: BadBlockReason): void {
    this.#entries.set(cid.toString(), reason);
  }

  get(cid: CID): BadBlockReason | undefined {
    return this.#entries.get(cid.toString());
  }

  has(cid: CID): boolean {
    return this.#entries.has(cid.toString());
  }

  remove(cid: CID): void {
    this.#entries.delete(cid.toString());
  }

  /** Empties the cache (SyncUnmarkAllBad). */
  clear(): void {
    this.#entries.clear();
  }

  /** Lotus's text for SyncCheckBad: the reason, and the origin when inherited. */
  describe(cid: CID): string {
    const entry = this.get(cid);
    if (entry === undefined) return '';
    return entry.origin === undefined ? entry.reason : `${entry.reason} (caused by: ${entry.origin})`;
  }
}
