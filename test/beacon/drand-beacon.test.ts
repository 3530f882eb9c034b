import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DrandBeacon, type DrandRelayError } from '../../src/beacon/index.js';
import { LedgerDatabase } from '../../src/db/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { DrandTestRelay, recordedRounds, vectorChainInfo } from './drand-relay-server.js';

describe('DrandBeacon: verified entries cached in the node database', () => {
  let dir: string;
  let relay: DrandTestRelay;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-drand-'));
    relay = await DrandTestRelay.start('mainnet');
  });
  afterEach(async () => {
    await relay.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const beacon = (db: LedgerDatabase, urls: string[], errors: DrandRelayError[] = []) =>
    new DrandBeacon({
      name: 'mainnet',
      chainInfo: vectorChainInfo('mainnet'),
      relays: urls.map((url) => ({ url })),
      store: db.drand,
      attempts: 1,
      onRelayError: (e) => errors.push(e),
    });

  it('fetches each round once and serves it from SQLite after a restart, with no relay left', async () => {
    const path = join(dir, 'chain.db');
    const rounds = recordedRounds('mainnet');
    let db = LedgerDatabase.open(path);
    const first = beacon(db, [relay.url]);
    for (const r of rounds) expect(toHex((await first.entry(BigInt(r.round))).data)).toBe(r.signature);
    await first.entry(3n);
    expect(relay.requests.filter((p) => p.includes('/public/'))).toHaveLength(rounds.length);
    expect(db.drand.count(first.client.chainInfo.hash)).toBe(BigInt(rounds.length));
    db.close();

    const url = relay.url;
    await relay.stop();
    db = LedgerDatabase.open(path);
    const errors: DrandRelayError[] = [];
    const restarted = beacon(db, [url], errors);
    for (const r of rounds) expect(toHex((await restarted.entry(BigInt(r.round))).data)).toBe(r.signature);
    expect(errors).toEqual([]);
    // The stored previous signature came along: round 4 re-verifies from it.
    expect(toHex(db.drand.get(first.client.chainInfo.hash, 4n)!.previousSignature!)).toBe(
      rounds[1]!.previous_signature,
    );
    db.close();
    relay = await DrandTestRelay.start('mainnet');
  });

  it('checks a fetched chained round against the stored previous round', async () => {
    const db = LedgerDatabase.open(':memory:');
    const b = beacon(db, [relay.url]);
    // Round 3 stored with a signature that is not the one round 4 was chained on.
    db.drand.put(b.client.chainInfo.hash, 3n, { signature: new Uint8Array(96).fill(7), previousSignature: undefined });
    await expect(b.entry(4n)).rejects.toThrow(
      /refused round 4: its previous_signature is not the verified signature of round 3/,
    );
    expect(db.drand.get(b.client.chainInfo.hash, 4n)).toBeUndefined();
    db.close();
  });

  it('verifies block entries from the cache (Lotus VerifyEntry), and stores the ones it verified', async () => {
    const db = LedgerDatabase.open(':memory:');
    const b = beacon(db, []);
    const [r3, r4] = recordedRounds('mainnet').map((r) => ({
      entry: { round: BigInt(r.round), data: Buffer.from(r.signature, 'hex') },
      previous: { round: BigInt(r.round - 1), data: Buffer.from(r.previous_signature!, 'hex') },
    }));
    expect(b.verifyEntry(r4!.entry, r4!.previous)).toBe(true);
    expect(db.drand.get(b.client.chainInfo.hash, 4n)).toBeDefined();
    // Now cached: a different signature for round 4 is refused without a previous entry to check it with.
    expect(b.verifyEntry({ round: 4n, data: r3!.entry.data })).toBe(false);
    expect(b.verifyEntry(r4!.entry)).toBe(true);
    expect(b.verifyEntry(r3!.entry, r4!.previous)).toBe(false);
    expect(db.drand.get(b.client.chainInfo.hash, 3n)).toBeUndefined();
    await expect(b.entry(0n)).rejects.toThrow('drand rounds start at 1, got 0');
    db.close();
  });

  it('keeps entries of different drand chains apart', async () => {
    const db = LedgerDatabase.open(':memory:');
    const quicknetRelay = await DrandTestRelay.start('quicknet');
    try {
      const mainnet = beacon(db, [relay.url]);
      const quicknet = new DrandBeacon({
        name: 'quicknet',
        chainInfo: vectorChainInfo('quicknet'),
        relays: [{ url: quicknetRelay.url }],
        store: db.drand,
      });
      await mainnet.entry(3n);
      const q3 = await quicknet.entry(3n);
      expect(q3.data).toHaveLength(48);
      expect(db.drand.count(mainnet.client.chainInfo.hash)).toBe(1n);
      expect(db.drand.count(quicknet.client.chainInfo.hash)).toBe(1n);
    } finally {
      await quicknetRelay.stop();
      db.close();
    }
  });
});
