/**
 * `lotus-seed pre-seal` for ledger-node devnets: pre-seals a miner's genesis sectors into a
 * directory, generates the miner's BLS owner/worker key and writes lotus-seed's files there:
 * `pre-seal-<miner>.json` (the genesis-miner manifest), `pre-seal-<miner>.key` and
 * `sectorstore.json` (read-only Lotus storage metadata, so `lotus-miner` can attach the sectors).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bls } from '../crypto/index.js';
import { Address, AddressProtocol, type Network } from '../types/index.js';
import { ProofsError } from './errors.js';
import {
  blsKeyInfo,
  dummyPeerId,
  type GenesisMinerJson,
  genesisMinerJson,
  type KeyInfoJson,
  keyFileText,
  type PreSealedSector,
} from './genesis-miner.js';
import { DEVNET_SEAL_PROOF, type RegisteredSealProof, sectorSize } from './registered-proofs.js';
import { presealSector } from './seal.js';

export interface PreSealOptions {
  /** The miner's ID address (`t01000`). */
  miner: Address;
  /** How many sectors, numbered from 0. */
  sectors: number;
  /** Where the sector files and lotus-seed's files go (created if missing). */
  dir: string;
  /** Default StackedDrg2KiBV1_1 (5). */
  sealProof?: RegisteredSealProof;
  /** The network char of addresses in the manifest (default `t`, as lotus-seed on devnets). */
  network?: Network;
  /** Called after each sector. */
  onProgress?: (done: number, total: number) => void;
}

export interface PreSealResult {
  /** The content of `pre-seal-<miner>.json`: the genesis miner keyed by its address. */
  manifest: Record<string, GenesisMinerJson>;
  workerKey: KeyInfoJson;
  manifestPath: string;
  keyPath: string;
}

export async function preSeal(options: PreSealOptions): Promise<PreSealResult> {
  if (options.miner.protocol !== AddressProtocol.ID) {
    throw new ProofsError('ERR_INVALID_PROOF_INPUT', 'the miner must be an ID address (f0… or t0…)');
  }
  if (!Number.isSafeInteger(options.sectors) || options.sectors < 1) {
    throw new ProofsError(
      'ERR_INVALID_PROOF_INPUT',
      `the sector count must be a positive integer, got ${options.sectors}`,
    );
  }
  const dir = resolve(options.dir);
  const network = options.network ?? 't';
  const sealProof = options.sealProof ?? DEVNET_SEAL_PROOF;
  const minerId = options.miner.id();
  await mkdir(dir, { recursive: true });

  const sectors: PreSealedSector[] = [];
  for (let number = 0n; number < BigInt(options.sectors); number++) {
    const commitments = await presealSector({ dir, minerId, sectorNumber: number, sealProof });
    sectors.push({ sectorNumber: number, ...commitments });
    options.onProgress?.(sectors.length, options.sectors);
  }

  const workerSecret = bls.generatePrivateKey();
  const workerKey = blsKeyInfo(workerSecret);
  const name = options.miner.toString(network);
  const manifest = {
    [name]: genesisMinerJson({
      miner: options.miner,
      worker: Address.newBls(bls.publicKey(workerSecret)),
      workerKey,
      peerId: dummyPeerId(),
      sealProof,
      sectorSize: sectorSize(sealProof),
      sectors,
      network,
    }),
  };
  const manifestPath = join(dir, `pre-seal-${name}.json`);
  const keyPath = join(dir, `pre-seal-${name}.key`);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(keyPath, keyFileText(workerKey), { mode: 0o600 });
  const storage = { ID: randomUUID(), Weight: 0, CanSeal: false, CanStore: false };
  await writeFile(join(dir, 'sectorstore.json'), `${JSON.stringify(storage, null, 2)}\n`);
  return { manifest, workerKey, manifestPath, keyPath };
}
