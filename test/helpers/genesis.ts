/**
 * The genesis-template builder of the tests: a devnet template (2k parameters, a fixed timestamp)
 * with accounts, multisigs and storage miners, the named templates tests share, and a genesis state
 * built by the real genesis builder in a memory store.
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import {
  buildGenesis,
  type GenesisActor,
  type GenesisMiner,
  type GenesisMultisig,
  type GenesisTemplate,
} from '../../src/chain/genesis/index.js';
import { blake2b256 } from '../../src/crypto/index.js';
import { MemoryBlockstore } from '../../src/ipld/index.js';
import { DEVNET_2K } from '../../src/params/index.js';
import { presealSector, sealedCid, unsealedCid } from '../../src/proofs/index.js';
import { Address } from '../../src/types/index.js';
import { keys, secpKey } from './keys.js';

export const FIL = 10n ** 18n;
export const PARAMS = DEVNET_2K;
export const GENESIS_TIMESTAMP = 1_700_000_000n;
/** The first genesis miner, owned and worked by `keys.worker` in the named templates. */
export const MINER = Address.newId(1000n);

export function accountOf(address: Address, balance: bigint): GenesisActor {
  return { type: 'account', balance, owner: address };
}

/** A multisig without vesting. */
export function multisigAccount(signers: readonly Address[], threshold: bigint, balance: bigint): GenesisMultisig {
  return { type: 'multisig', balance, signers, threshold, vestingDuration: 0n, vestingStart: 0n };
}

/** A commitment CID shaped like the proofs module's (codec, multihash code), from a label. */
export function commitmentCid(kind: 'sealed' | 'unsealed', label: string): CID {
  const [codec, hash] = kind === 'sealed' ? [0xf102, 0xb401] : [0xf101, 0x1012];
  return CID.createV1(codec, Digest.create(hash, blake2b256(new TextEncoder().encode(`${kind}:${label}`))));
}

/**
 * Genesis miner t0(1000 + index) with `sectors` 2 KiB sectors (StackedDrg2KiBV1_1) whose
 * commitments are made up: enough for power and state, not for proving.
 */
export function genesisMiner(index: number, owner: Address, worker: Address, sectors: number): GenesisMiner {
  return {
    id: Address.newId(1000n + BigInt(index)),
    owner,
    worker,
    peerId: new TextEncoder().encode(`peer-${index}`),
    sectorSize: 2048n,
    sectors: Array.from({ length: sectors }, (_, i) => ({
      commR: commitmentCid('sealed', `${index}/${i}`),
      commD: commitmentCid('unsealed', `${index}/${i}`),
      sectorNumber: BigInt(i),
      proofType: 5,
    })),
  };
}

/**
 * Genesis miner `id` with `sectorCount` (default two) sectors really pre-sealed into
 * `sectorDirectory` (as lotus-seed does), so it can win elections with real winning PoSts and
 * prove them in window PoSts. Needs the cached 2 KiB parameters.
 */
export async function presealedMiner(
  sectorDirectory: string,
  id: Address,
  worker: Address,
  peerId: string,
  sectorCount = 2n,
): Promise<GenesisMiner> {
  const sectors = [];
  for (let sectorNumber = 0n; sectorNumber < sectorCount; sectorNumber++) {
    const { commR, commD } = await presealSector({ dir: sectorDirectory, minerId: id.id(), sectorNumber });
    sectors.push({ commR: sealedCid(commR), commD: unsealedCid(commD), sectorNumber, proofType: 5 });
  }
  return { id, owner: worker, worker, peerId: new TextEncoder().encode(peerId), sectorSize: 2048n, sectors };
}

/** An empty devnet template at GENESIS_TIMESTAMP; `overrides` fill it. */
export function devnetTemplate(overrides: Partial<GenesisTemplate> = {}): GenesisTemplate {
  return {
    networkName: 'ledger-test',
    timestamp: GENESIS_TIMESTAMP,
    accounts: [],
    miners: [],
    remainderAccount: accountOf(secpKey('remainder').address, 0n),
    ...overrides,
  };
}

/** The miner of the named templates: t01000, owned and worked by `keys.worker`, with 2 sectors. */
export function workerMiner(): GenesisMiner {
  return genesisMiner(0, keys.worker.address, keys.worker.address, 2);
}

/**
 * The chain tests' genesis: alice (1000 FIL), bob (10 FIL), worker (1000 FIL) and worker's miner
 * t01000 with 2 sectors; `accounts` are funded after them.
 */
export function fundedTemplate(accounts: readonly GenesisActor[] = []): GenesisTemplate {
  return devnetTemplate({
    accounts: [
      accountOf(keys.alice.address, 1000n * FIL),
      accountOf(keys.bob.address, 10n * FIL),
      accountOf(keys.worker.address, 1000n * FIL),
      ...accounts,
    ],
    miners: [workerMiner()],
  });
}

/** fundedTemplate() with a 1-of-1 multisig of alice holding 50 FIL (proposals that move value). */
export function multisigTemplate(): GenesisTemplate {
  return fundedTemplate([multisigAccount([keys.alice.address], 1n, 50n * FIL)]);
}

/** The state machine tests' genesis: alice (1000 FIL), bob (10), carol (5, BLS), worker (1000) and t01000. */
export function standardTemplate(): GenesisTemplate {
  return devnetTemplate({
    accounts: [
      accountOf(keys.alice.address, 1000n * FIL),
      accountOf(keys.bob.address, 10n * FIL),
      accountOf(keys.carol.address, 5n * FIL),
      accountOf(keys.worker.address, 1000n * FIL),
    ],
    miners: [workerMiner()],
  });
}

/** A genesis state without a chain store, for applying tipsets to state roots directly. */
export interface GenesisState {
  readonly store: MemoryBlockstore;
  readonly genesisRoot: CID;
  readonly genesisCid: CID;
}

export function genesisState(template: GenesisTemplate): GenesisState {
  const store = new MemoryBlockstore();
  const genesis = buildGenesis(store, template, PARAMS);
  return { store, genesisRoot: genesis.stateRoot, genesisCid: genesis.cid };
}

export function standardGenesis(): GenesisState {
  return genesisState(standardTemplate());
}
