/**
 * The genesis-making steps `ledger devnet` and `ledger network create` share, as lotus-seed
 * (filecoin-project/lotus `cmd/lotus-seed`) and `lotus daemon --lotus-make-genesis` do them:
 * pre-sealing a miner's sectors with its worker key, adding the miner's owner account, building the
 * genesis from the template and exporting it as a CAR.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  buildGenesis,
  exportGenesisCar,
  type Genesis,
  type GenesisAccount,
  type GenesisMiner,
  type GenesisTemplate,
  genesisMinerFromLotusJson,
} from '../chain/genesis/index.js';
import { secp256k1 } from '../crypto/index.js';
import type { Blockstore } from '../ipld/index.js';
import type { NetworkParams } from '../params/index.js';
import { preSeal } from '../proofs/index.js';
import { Address, FILECOIN_PRECISION } from '../types/index.js';
import { type KeyInfo, keyInfoFromLotusJson } from '../wallet/index.js';

/** What lotus-seed `genesis add-miner` gives the miner's owner. */
export const MINER_OWNER_BALANCE = 50_000_000n * FILECOIN_PRECISION;

export interface PreSealedGenesisMiner {
  readonly miner: GenesisMiner;
  /** The BLS owner/worker key (also in `pre-seal-<miner>.key` in the directory). */
  readonly workerKey: KeyInfo;
  /** The lotus-seed manifest entry (`pre-seal-<miner>.json`'s value), Lotus JSON. */
  readonly manifest: unknown;
  /** The account `genesis add-miner` adds for the owner. */
  readonly ownerAccount: GenesisAccount;
}

/** Pre-seals `sectors` 2 KiB sectors of `miner` into `dir` with lotus-seed's files beside them. */
export async function preSealGenesisMiner(
  miner: Address,
  sectors: number,
  dir: string,
  params: Pick<NetworkParams, 'addressNetwork'>,
): Promise<PreSealedGenesisMiner> {
  const sealed = await preSeal({ miner, sectors, dir, network: params.addressNetwork });
  const manifest = sealed.manifest[miner.toString(params.addressNetwork)];
  const genesisMiner = genesisMinerFromLotusJson(manifest, 'pre-seal manifest');
  return {
    miner: genesisMiner,
    workerKey: keyInfoFromLotusJson(sealed.workerKey, 'pre-seal key'),
    manifest,
    ownerAccount: { type: 'account', balance: MINER_OWNER_BALANCE, owner: genesisMiner.owner },
  };
}

/** An account nobody holds a key for: where the rest of the supply goes unless the template names one. */
export function keylessAccount(): GenesisAccount {
  return { type: 'account', balance: 0n, owner: Address.newSecp256k1(secp256k1.publicKey(randomBytes(32))) };
}

/**
 * A genesis time for a network starting now: one epoch back, so round 1 is due as soon as a node
 * runs and the first block waits only for its winning PoSt. Rounded up, so round 2 is not due yet.
 */
export function genesisTimestampNow(blockDelaySecs: bigint): bigint {
  return BigInt(Math.ceil(Date.now() / 1000)) - blockDelaySecs;
}

/** Builds the genesis into `store` and writes it to `carFile`. */
export async function writeGenesis(
  store: Blockstore,
  template: GenesisTemplate,
  params: NetworkParams,
  carFile: string,
): Promise<Genesis> {
  const genesis = buildGenesis(store, template, params);
  await exportGenesisCar(store, genesis.cid, createWriteStream(carFile));
  return genesis;
}
