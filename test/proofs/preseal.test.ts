import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { bls } from '../../src/crypto/index.js';
import {
  commRFromCid,
  type GenesisMinerJson,
  type KeyInfoJson,
  preSeal,
  presealSector,
} from '../../src/proofs/index.js';
import { Address, parseCid } from '../../src/types/index.js';
import { fromBase64 } from '../../src/utils/bytes.js';

describe('pre-sealing genesis sectors', () => {
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledger-preseal-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('writes a lotus-seed manifest and key, and keeps only what PoSt needs', async () => {
    const dir = await tempDir();
    const miner = Address.fromString('t01000');
    const result = await preSeal({ miner, sectors: 2, dir });

    expect(Object.keys(result.manifest)).toEqual(['t01000']);
    const genesisMiner = result.manifest.t01000 as GenesisMinerJson;
    expect(genesisMiner).toMatchObject({
      ID: 't01000',
      MarketBalance: '0',
      PowerBalance: '0',
      SectorSize: 2048,
    });
    expect(genesisMiner.Owner).toBe(genesisMiner.Worker);
    expect(genesisMiner.Worker).toMatch(/^t3/);
    expect(genesisMiner.PeerId).toMatch(/^12D3KooW/);
    expect(genesisMiner.Sectors.map((s) => s.SectorID)).toEqual([0, 1]);
    for (const [index, sector] of genesisMiner.Sectors.entries()) {
      expect(sector.ProofType).toBe(5);
      expect(sector.CommR['/']).toMatch(/^bagboea4b5abc/);
      expect(sector.CommD['/']).toMatch(/^baga6ea4seaq/);
      expect(sector.Deal).toMatchObject({
        PieceCID: sector.CommD,
        PieceSize: 2048,
        VerifiedDeal: false,
        Client: genesisMiner.Worker,
        Provider: 't01000',
        Label: String(index),
        StartEpoch: 0,
        EndEpoch: 9001,
        StoragePricePerEpoch: '0',
      });
      expect(sector.DealClientKey).toEqual(result.workerKey);
    }

    // The key file is hex of the KeyInfo JSON, and its key is the worker's.
    const keyText = await readFile(join(dir, 'pre-seal-t01000.key'), 'utf8');
    const key = JSON.parse(Buffer.from(keyText, 'hex').toString()) as KeyInfoJson;
    expect(key.Type).toBe('bls');
    expect(Address.newBls(bls.publicKey(fromBase64(key.PrivateKey))).toString('t')).toBe(genesisMiner.Worker);
    expect(JSON.parse(await readFile(join(dir, 'pre-seal-t01000.json'), 'utf8'))).toEqual(result.manifest);

    expect((await readdir(join(dir, 'sealed'))).sort()).toEqual(['s-t01000-0', 's-t01000-1']);
    expect(await readdir(join(dir, 'unsealed'))).toEqual([]);
    const cache = await readdir(join(dir, 'cache', 's-t01000-0'));
    expect(cache).toEqual(expect.arrayContaining(['p_aux', 't_aux']));
    expect(cache.some((f) => f.startsWith('sc-02-data-tree-r-last'))).toBe(true);
    expect(cache.some((f) => f.includes('layer'))).toBe(false);
    expect(existsSync(join(dir, 'sectorstore.json'))).toBe(true);
  }, 120_000);

  it('is deterministic: the same miner and sector give the same commitments anywhere', async () => {
    const [a, b] = [await tempDir(), await tempDir()];
    const first = await presealSector({ dir: a, minerId: 1234n, sectorNumber: 3n });
    const second = await presealSector({ dir: b, minerId: 1234n, sectorNumber: 3n });
    expect(second).toEqual(first);
    const otherSector = await presealSector({ dir: b, minerId: 1234n, sectorNumber: 4n });
    expect(otherSector.commR).not.toEqual(first.commR);
  });

  it('runs from the CLI: `ledger proofs preseal` prints the manifest on stdout', async () => {
    const dir = await tempDir();
    const stdout: string[] = [];
    const writeOut = process.stdout.write.bind(process.stdout);
    const writeErr = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string) => stdout.push(chunk) > 0) as typeof process.stdout.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      await main(['node', 'ledger', 'proofs', 'preseal', '--miner', 'f01001', '--sectors', '1', '--dir', dir]);
    } finally {
      process.stdout.write = writeOut;
      process.stderr.write = writeErr;
    }
    const manifest = JSON.parse(stdout.join('')) as Record<string, GenesisMinerJson>;
    const genesisMiner = manifest.f01001 as GenesisMinerJson;
    expect(genesisMiner.Worker).toMatch(/^f3/);
    const commR = commRFromCid(parseCid(genesisMiner.Sectors[0]!.CommR['/']));
    const again = await presealSector({ dir: await tempDir(), minerId: 1001n, sectorNumber: 0n });
    expect(commR).toEqual(Uint8Array.from(again.commR));
  }, 120_000);
});
