/**
 * What a killed node left on disk, read while no process has the database open: SQLite's own
 * `PRAGMA integrity_check` and the head tipset being indexed. It also lists slash-filter records
 * (`mined_blocks`) whose block was never stored: what a miner killed between recording a block and
 * writing it leaves. Such a record is reported, not failed, here: what matters is whether the
 * restarted miner still mines (a slash filter that trusts it refuses every block on the same
 * parents as a time-offset fault, Lotus `chain/gen/slashfilter`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../src/node/chain-services.js';

export interface StoreCheck {
  readonly ok: boolean;
  /** `ok`, or what is wrong. */
  readonly detail: string;
  /** Height of the head tipset on disk, when there is one. */
  readonly headHeight?: number;
  /** Heights of slash-filter records whose block is not in the blockstore. */
  readonly orphanMinedRecords?: readonly number[];
}

export function databasePath(repo: string): string {
  return join(repo, DATABASE_FILE);
}

/**
 * Resolves true as soon as a running miner has recorded a block higher than any before (its
 * slash-filter row is committed), polling a read-only connection every millisecond, so a kill can
 * follow within a millisecond or two of the record; false after `timeoutMs`.
 */
export async function waitForMinedRecord(repo: string, timeoutMs: number): Promise<boolean> {
  const db = new Database(databasePath(repo), { readonly: true, fileMustExist: true });
  try {
    const highest = db.prepare('SELECT coalesce(max(height), -1) FROM mined_blocks').pluck();
    const before = highest.get() as number;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((highest.get() as number) > before) return true;
      await new Promise((r) => setTimeout(r, 1));
    }
    return false;
  } finally {
    db.close();
  }
}

/** Opens the repo's chain database as the next start would (WAL recovery included) and checks it. */
export function checkStore(repo: string): StoreCheck {
  const path = databasePath(repo);
  if (!existsSync(path)) return { ok: true, detail: 'ok (no database yet)' };
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (error) {
    return { ok: false, detail: `cannot open ${path}: ${(error as Error).message}` };
  }
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (integrity.join() !== 'ok') return { ok: false, detail: `integrity_check: ${integrity.slice(0, 5).join('; ')}` };
    const tables = new Set(
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map(String),
    );
    if (!tables.has('chain_meta')) return { ok: true, detail: 'ok (schema not created yet)' };
    let headHeight: number | undefined;
    const head = db.prepare("SELECT value FROM chain_meta WHERE name = 'head'").pluck().get() as Buffer | undefined;
    if (head !== undefined) {
      headHeight = db.prepare('SELECT height FROM tipsets WHERE key = ?').pluck().get(head) as number | undefined;
      if (headHeight === undefined) return { ok: false, detail: 'the head tipset is not in the tipsets index' };
    }
    const orphans = db
      .prepare('SELECT height FROM mined_blocks m WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE b.cid = m.block)')
      .pluck()
      .all() as number[];
    return {
      ok: true,
      detail: 'ok',
      ...(headHeight === undefined ? {} : { headHeight }),
      ...(orphans.length === 0 ? {} : { orphanMinedRecords: orphans }),
    };
  } catch (error) {
    return { ok: false, detail: `checking ${path}: ${(error as Error).message}` };
  } finally {
    db.close();
  }
}
