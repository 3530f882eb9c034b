/**
 * lotus-seed's genesis-miner manifest (`pre-seal-<miner>.json`: Lotus `genesis.Miner` keyed by the
 * miner address) and key file (`pre-seal-<miner>.key`: hex of the Lotus KeyInfo JSON), in Lotus
 * JSON. Each pre-sealed sector carries a zero-price deal from the worker to the miner, as
 * lotus-seed's `createDeals` makes them.
 */
import { generateKeyPairSync } from 'node:crypto';
import { base58btc } from 'multiformats/bases/base58';
import type { Address, CidJson, JsonInteger, Network } from '../types/index.js';
import { cidToLotusJson, toJsonInteger } from '../types/index.js';
import { toBase64 } from '../utils/bytes.js';
import { sealedCid, unsealedCid } from './commitments.js';
import type { RegisteredSealProof } from './registered-proofs.js';

/** Lotus `types.KeyInfo`. */
export interface KeyInfoJson {
  Type: 'bls';
  /** The 32-byte little-endian secret key, base64. */
  PrivateKey: string;
}

/** go-state-types v9 `market.DealProposal`. */
export interface DealProposalJson {
  PieceCID: CidJson;
  PieceSize: JsonInteger;
  VerifiedDeal: boolean;
  Client: string;
  Provider: string;
  Label: string;
  StartEpoch: number;
  EndEpoch: number;
  StoragePricePerEpoch: string;
  ProviderCollateral: string;
  ClientCollateral: string;
}

/** Lotus `genesis.PreSeal`. */
export interface PreSealJson {
  CommR: CidJson;
  CommD: CidJson;
  SectorID: JsonInteger;
  Deal: DealProposalJson;
  DealClientKey: KeyInfoJson;
  ProofType: number;
}

/** Lotus `genesis.Miner`. */
export interface GenesisMinerJson {
  ID: string;
  Owner: string;
  Worker: string;
  PeerId: string;
  MarketBalance: string;
  PowerBalance: string;
  SectorSize: JsonInteger;
  Sectors: PreSealJson[];
}

export interface PreSealedSector {
  sectorNumber: bigint;
  commR: Uint8Array;
  commD: Uint8Array;
}

/** lotus-seed's deals end at epoch 9001. */
const DEAL_END_EPOCH = 9001;

export function blsKeyInfo(privateKey: Uint8Array): KeyInfoJson {
  return { Type: 'bls', PrivateKey: toBase64(privateKey) };
}

/** The key file's content: hex of the KeyInfo JSON, as lotus-seed writes it (and `lotus wallet import` reads it). */
export function keyFileText(key: KeyInfoJson): string {
  return Buffer.from(JSON.stringify(key)).toString('hex');
}

/**
 * A throwaway libp2p peer id, as lotus-seed generates when none is given: an Ed25519 public key
 * in its protobuf envelope, as an identity multihash, base58btc (`12D3KooW…`).
 */
export function dummyPeerId(): string {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x as string, 'base64url');
  // PublicKey protobuf: field 1 (KeyType) = 1 (Ed25519), field 2 (Data) = the 32 key bytes.
  const envelope = Uint8Array.from([0x08, 0x01, 0x12, 0x20, ...publicKey]);
  // Identity multihash (code 0x00) of the 36-byte envelope.
  return base58btc.baseEncode(Uint8Array.from([0x00, envelope.length, ...envelope]));
}

export function genesisMinerJson(input: {
  miner: Address;
  worker: Address;
  workerKey: KeyInfoJson;
  peerId: string;
  sealProof: RegisteredSealProof;
  sectorSize: bigint;
  sectors: readonly PreSealedSector[];
  network: Network;
}): GenesisMinerJson {
  const miner = input.miner.toString(input.network);
  const worker = input.worker.toString(input.network);
  return {
    ID: miner,
    Owner: worker,
    Worker: worker,
    PeerId: input.peerId,
    MarketBalance: '0',
    PowerBalance: '0',
    SectorSize: toJsonInteger(input.sectorSize),
    Sectors: input.sectors.map((sector, index) => {
      const commD = cidToLotusJson(unsealedCid(sector.commD));
      return {
        CommR: cidToLotusJson(sealedCid(sector.commR)),
        CommD: commD,
        SectorID: toJsonInteger(sector.sectorNumber),
        Deal: {
          PieceCID: commD,
          PieceSize: toJsonInteger(input.sectorSize),
          VerifiedDeal: false,
          Client: worker,
          Provider: miner,
          Label: String(index),
          StartEpoch: 0,
          EndEpoch: DEAL_END_EPOCH,
          StoragePricePerEpoch: '0',
          ProviderCollateral: '0',
          ClientCollateral: '0',
        },
        DealClientKey: input.workerKey,
        ProofType: input.sealProof,
      };
    }),
  };
}
