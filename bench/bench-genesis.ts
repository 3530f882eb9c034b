/**
 * The genesis the VM benchmarks apply tipsets on: a funder account holding what the benchmark
 * hands out, and one miner (t01000, one pre-committed 2 KiB sector) whose blocks earn the rewards.
 * Keys derive from fixed seeds, so every run builds the same genesis. And the tipsets: messages
 * split over blocks of that miner, applied on the 2k devnet's parameters.
 */
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import type { GenesisTemplate } from '../src/chain/genesis/index.js';
import { blake2b256, bls, secp256k1 } from '../src/crypto/index.js';
import { DEVNET_2K } from '../src/params/index.js';
import { Address, type SignedMessage } from '../src/types/index.js';
import type { TipsetApplication, TipsetExecutor } from '../src/vm/index.js';

const GENESIS_TIMESTAMP = 1_700_000_000n;
const MINER = Address.newId(1000n);
const FIL = 10n ** 18n;

export interface BenchGenesis {
  readonly template: GenesisTemplate;
  readonly funderKey: Uint8Array;
  readonly funder: Address;
}

/** The genesis for seeds `<seed>-funder`, `<seed>-worker`, …, named `ledger-<seed>`. */
export function benchGenesis(seed: string): BenchGenesis {
  const encoder = new TextEncoder();
  const hashOf = (label: string) => blake2b256(encoder.encode(`${seed}-${label}`));
  const funderKey = hashOf('funder');
  const funder = Address.newSecp256k1(secp256k1.publicKey(funderKey));
  const worker = Address.newBls(bls.publicKey(bls.privateKeyFromSeed(hashOf('worker'))));
  const template: GenesisTemplate = {
    networkName: `ledger-${seed}`,
    timestamp: GENESIS_TIMESTAMP,
    accounts: [
      { type: 'account', balance: 10_000_000n * FIL, owner: funder },
      { type: 'account', balance: 1000n * FIL, owner: worker },
    ],
    miners: [
      {
        id: MINER,
        owner: worker,
        worker,
        peerId: encoder.encode(`${seed}-peer`),
        sectorSize: 2048n,
        sectors: [
          {
            commR: CID.createV1(0xf102, Digest.create(0xb401, hashOf('commr'))),
            commD: CID.createV1(0xf101, Digest.create(0x1012, hashOf('commd'))),
            sectorNumber: 0n,
            proofType: 5,
          },
        ],
      },
    ],
    remainderAccount: {
      type: 'account',
      balance: 0n,
      owner: Address.newSecp256k1(secp256k1.publicKey(hashOf('remainder'))),
    },
  };
  return { template, funderKey, funder };
}

/** Applies `messages` on `root` as the tipset at `epoch`, split over `blocks` blocks of the genesis miner. */
export function applyBenchTipset(
  executor: TipsetExecutor,
  root: CID,
  epoch: bigint,
  baseFee: bigint,
  messages: readonly SignedMessage[],
  blocks: number,
): Promise<TipsetApplication> {
  const size = Math.ceil(messages.length / blocks);
  return executor.apply(
    root,
    {
      epoch,
      parentEpoch: epoch - 1n,
      baseFee,
      timestamp: GENESIS_TIMESTAMP + epoch * DEVNET_2K.blockDelaySecs,
      genesisTimestamp: GENESIS_TIMESTAMP,
      blocks: Array.from({ length: blocks }, (_, b) => ({
        miner: MINER,
        winCount: 1n,
        blsMessages: [],
        secpMessages: messages.slice(b * size, (b + 1) * size),
      })),
    },
    { networkParams: DEVNET_2K },
  );
}
