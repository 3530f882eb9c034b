import {
  DrandBeacon,
  DrandChainInfoError,
  DrandClient,
  type DrandRelayError,
  DrandUnavailableError,
  parseDrandChainInfo,
} from '../../src/beacon/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { DrandTestRelay, drandVectors, recordedRounds, vectorChainInfo } from './drand-relay-server.js';

describe('drand chain info', () => {
  it('computes each recorded chain hash from the rest of the info', () => {
    for (const [name, { chain_info }] of Object.entries(drandVectors.networks)) {
      const info = parseDrandChainInfo({ ...chain_info, hash: undefined }, name);
      expect(toHex(info.hash)).toBe(chain_info.hash);
    }
  });

  it('refuses a stated hash that does not match, an unknown scheme and a key of the wrong length', () => {
    const quicknet = drandVectors.networks.quicknet!.chain_info;
    expect(() => parseDrandChainInfo({ ...quicknet, genesis_time: quicknet.genesis_time + 1 }, 'relay X')).toThrow(
      /relay X: the chain hash "52db9ba7.*" is not the hash of the chain info/,
    );
    expect(() => parseDrandChainInfo({ ...quicknet, schemeID: 'bls-unchained-on-g1' }, 'cfg')).toThrow(
      DrandChainInfoError,
    );
    const mainnet = drandVectors.networks.mainnet!.chain_info;
    expect(() => parseDrandChainInfo({ ...mainnet, public_key: quicknet.public_key, hash: undefined }, 'cfg')).toThrow(
      'cfg: a pedersen-bls-chained public key has 48 bytes, got 96',
    );
  });
});

describe('DrandClient over local relays', () => {
  const relays: DrandTestRelay[] = [];
  const start = async (...args: Parameters<typeof DrandTestRelay.start>) => {
    const relay = await DrandTestRelay.start(...args);
    relays.push(relay);
    return relay;
  };
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });

  function client(network: string, urls: string[], errors: DrandRelayError[] = [], timeoutMs?: number) {
    return new DrandClient({
      name: network,
      chainInfo: vectorChainInfo(network),
      relays: urls.map((url) => ({ url })),
      timeoutMs,
      onRelayError: (e) => errors.push(e),
    });
  }

  it('follows a relay of a chained network (drand mainnet) and verifies every round', async () => {
    const relay = await start('mainnet');
    const c = client('mainnet', [relay.url]);
    const rounds = recordedRounds('mainnet');
    expect(rounds.map((r) => r.round)).toEqual([3, 4]);
    for (const r of rounds) {
      const got = await c.get(BigInt(r.round));
      expect(got.entry).toEqual({ round: BigInt(r.round), data: Buffer.from(r.signature, 'hex') });
      expect(toHex(got.previousSignature!)).toBe(r.previous_signature);
    }
    const latest = await c.get('latest');
    expect(latest.entry.round).toBe(4n);
    const hash = drandVectors.networks.mainnet!.chain_info.hash;
    expect(relay.requests).toEqual([
      `/${hash}/info`,
      `/${hash}/public/3`,
      `/${hash}/public/4`,
      `/${hash}/public/latest`,
    ]);
  });

  it('follows a relay of an unchained network (quicknet, bls-unchained-g1-rfc9380)', async () => {
    const relay = await start('quicknet');
    const c = client('quicknet', [relay.url]);
    for (const r of recordedRounds('quicknet')) {
      const got = await c.get(BigInt(r.round));
      expect(toHex(got.entry.data)).toBe(r.signature);
      expect(got.previousSignature).toBeUndefined();
    }
  });

  it('reads the legacy un-prefixed paths when a relay is configured so', async () => {
    const relay = await start('mainnet');
    const c = new DrandClient({
      name: 'mainnet',
      chainInfo: vectorChainInfo('mainnet'),
      relays: [{ url: `${relay.url}/`, legacyPaths: true }],
    });
    expect((await c.get(4n)).entry.round).toBe(4n);
    expect(relay.requests).toEqual(['/info', '/public/4']);
  });

  it('refuses a tampered round with an error naming the relay and the round, and goes on with the next relay', async () => {
    const tampered = await start('quicknet', { tamper: new Set([3]) });
    const good = await start('quicknet');
    const errors: DrandRelayError[] = [];
    const c = client('quicknet', [tampered.url, good.url], errors);
    expect(toHex((await c.get(2n)).entry.data)).toBe(recordedRounds('quicknet')[0]!.signature);
    expect(good.requests).toEqual([]);
    const got = await c.get(3n);
    expect(toHex(got.entry.data)).toBe(recordedRounds('quicknet')[1]!.signature);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toBe(
      `drand relay ${tampered.url}: refused round 3: its signature does not verify against the quicknet public key`,
    );
    expect(errors[0]!.details).toEqual({ relay: tampered.url, round: '3', reason: 'invalid-entry' });
    // The relay that served the good round is asked first from now on.
    await c.get(2n);
    expect(good.requests.filter((p) => p.endsWith('/public/2'))).toHaveLength(1);
  });

  it('refuses a chained round whose signature was tampered with, and one whose previous signature is not the known one', async () => {
    const tampered = await start('mainnet', { tamper: new Set([4]) });
    const errors: DrandRelayError[] = [];
    const c = client('mainnet', [tampered.url], errors);
    const failure = await c.get(4n).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DrandUnavailableError);
    expect((failure as Error).message).toBe(
      `no drand relay served a verified entry for round 4: drand relay ${tampered.url}: refused round 4: its signature does not verify against the mainnet public key`,
    );
    const good = await start('mainnet');
    const c2 = client('mainnet', [good.url], errors);
    const wrongPrevious = Buffer.from(recordedRounds('mainnet')[0]!.previous_signature!, 'hex');
    await expect(c2.get(4n, { knownPrevious: wrongPrevious })).rejects.toThrow(
      'refused round 4: its previous_signature is not the verified signature of round 3',
    );
  });

  it('refuses a relay whose chain info is another chain, for good', async () => {
    const impostor = await start('quicknet', { chainInfo: drandVectors.networks.mainnet!.chain_info });
    const good = await start('quicknet');
    const errors: DrandRelayError[] = [];
    const c = client('quicknet', [impostor.url, good.url], errors);
    expect((await c.get(2n)).entry.round).toBe(2n);
    expect(errors.map((e) => e.message)).toEqual([
      `drand relay ${impostor.url}: refused: it serves drand chain ${drandVectors.networks.mainnet!.chain_info.hash}, not the configured quicknet chain ${drandVectors.networks.quicknet!.chain_info.hash}`,
    ]);
    expect(impostor.requests.some((p) => p.includes('/public/'))).toBe(false);
    // Alone, it fails every request, refused for good: asked /info once and reported once.
    const reported: DrandRelayError[] = [];
    const alone = client('quicknet', [impostor.url], reported);
    const before = impostor.requests.length;
    for (let i = 0; i < 2; i++) {
      const failure = (await alone.get(2n).catch((e: unknown) => e)) as DrandUnavailableError;
      expect(failure.failures.map((f) => f.reason)).toEqual(['wrong-chain']);
    }
    expect(impostor.requests.length - before).toBe(1);
    expect(reported).toHaveLength(1);
  });

  it('refuses a relay whose chain info has the right hash but was tampered with', async () => {
    const quicknet = drandVectors.networks.quicknet!.chain_info;
    const forged = { ...quicknet, period: 4 };
    const relay = await start('quicknet', { chainInfo: forged });
    const errors: DrandRelayError[] = [];
    await expect(client('quicknet', [relay.url], errors).get(2n)).rejects.toThrow(DrandUnavailableError);
    expect(errors[0]!.reason).toBe('wrong-chain');
    expect(errors[0]!.message).toMatch(/is not the hash of the chain info/);
  });

  it('fails over on a 404 and on a relay slower than the timeout', async () => {
    const lacking = await start('quicknet', { missing: new Set([3]) });
    const slow = await start('quicknet', { delayMs: 2_000 });
    const good = await start('quicknet');
    const errors: DrandRelayError[] = [];
    const c = client('quicknet', [lacking.url, slow.url, good.url], errors, 300);
    const began = performance.now();
    expect((await c.get(3n)).entry.round).toBe(3n);
    expect(performance.now() - began).toBeLessThan(1_500);
    expect(errors.map((e) => e.reason)).toEqual(['not-found', 'unreachable']);
    expect(errors[0]!.message).toMatch(/public\/3: HTTP 404/);
    expect(errors[1]!.message).toMatch(/no answer within 300 ms/);
  });

  it('reports every relay when none serves the round', async () => {
    const a = await start('quicknet', { missing: new Set([2]) });
    const c = client('quicknet', [a.url, 'http://127.0.0.1:9']);
    const failure = (await c.get(2n).catch((e: unknown) => e)) as DrandUnavailableError;
    expect(failure).toBeInstanceOf(DrandUnavailableError);
    expect(failure.failures.map((f) => f.relay)).toEqual([a.url, 'http://127.0.0.1:9']);
    expect(failure.failures.map((f) => f.reason)).toEqual(['not-found', 'unreachable']);
  });

  it('DrandBeacon waits for a round that is not due yet', async () => {
    const relay = await start('quicknet');
    const info = vectorChainInfo('quicknet');
    const dueMs = Number(info.genesisTime + 2n * info.periodSecs) * 1000; // round 3
    const offset = Date.now() - (dueMs - 400);
    const beacon = new DrandBeacon({
      name: 'quicknet',
      chainInfo: info,
      relays: [{ url: relay.url }],
      now: () => Date.now() - offset,
    });
    const began = performance.now();
    const entry = await beacon.entry(3n);
    expect(entry.round).toBe(3n);
    expect(performance.now() - began).toBeGreaterThanOrEqual(350);
    const controller = new AbortController();
    const waiting = beacon.entry(1_000n, controller.signal);
    controller.abort(new Error('the node is stopping'));
    await expect(waiting).rejects.toThrow('aborted: the node is stopping');
  });
});
