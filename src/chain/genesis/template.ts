/**
 * The genesis template, modelled on filecoin-project/lotus `genesis/types.go`: the network's name
 * and start time, accounts and multisigs with their balances, miners with pre-sealed sectors (the
 * lotus-seed genesis-miner manifest), and the account that receives the rest of the supply. Both
 * shapes are read from Lotus JSON, so `lotus-seed genesis new`/`add-miner` output works.
 *
 * Not carried over: `VerifregRootKey` (we run no verified registry; a zero-balance one is accepted
 * and ignored), miners' `MarketBalance` (no market actor: it must be 0) and `PowerBalance` (Lotus
 * ignores it too; the create-miner deposit is computed).
 */
import { base58btc } from 'multiformats/bases/base58';
import type { CID } from 'multiformats/cid';
import {
  type Address,
  addressFromLotusJson,
  bigIntFromLotusJson,
  jsonField,
  readJsonArray,
  readJsonCid,
  readJsonInt64,
  readJsonObject,
  readJsonUint64,
} from '../../types/index.js';
import { GenesisError } from './errors.js';

export interface GenesisAccount {
  readonly type: 'account';
  readonly balance: bigint;
  /**
   * An f1 or f3 key address, or an f410 Ethereum address, which gets an EthAccount (Lotus would make
   * an account actor holding the f410; an EthAccount is what a MetaMask key's first message makes).
   */
  readonly owner: Address;
}

export interface GenesisMultisig {
  readonly type: 'multisig';
  readonly balance: bigint;
  readonly signers: readonly Address[];
  readonly threshold: bigint;
  /** Epochs over which the balance unlocks linearly (0: unlocked at once). */
  readonly vestingDuration: bigint;
  readonly vestingStart: bigint;
}

export type GenesisActor = GenesisAccount | GenesisMultisig;

/** Lotus `genesis.PreSeal`, reduced to what the state records. */
export interface GenesisPreSeal {
  readonly commR: CID;
  readonly commD: CID;
  readonly sectorNumber: bigint;
  readonly proofType: number;
}

/** Lotus `genesis.Miner`: the lotus-seed manifest of one pre-sealed miner. */
export interface GenesisMiner {
  /** Must be f0(1000 + its index in the template), as Lotus requires. */
  readonly id: Address;
  readonly owner: Address;
  /** A BLS key address: the worker signs block VRFs. */
  readonly worker: Address;
  /** The libp2p peer ID's bytes. */
  readonly peerId: Uint8Array;
  readonly sectorSize: bigint;
  readonly sectors: readonly GenesisPreSeal[];
}

export interface GenesisTemplate {
  readonly networkName: string;
  /** Unix seconds of epoch 0. */
  readonly timestamp: bigint;
  readonly accounts: readonly GenesisActor[];
  readonly miners: readonly GenesisMiner[];
  /** Gets every token no other actor has (at f090). Its `balance` is ignored. */
  readonly remainderAccount: GenesisActor;
}

function readString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new GenesisError(`${path}: expected a string`);
  return value;
}

function actorFromLotusJson(json: unknown, path: string): GenesisActor {
  const object = readJsonObject(json, path);
  const type = readString(jsonField(object, 'Type'), `${path}.Type`);
  const balance = bigIntFromLotusJson(jsonField(object, 'Balance'), `${path}.Balance`);
  const meta = readJsonObject(jsonField(object, 'Meta'), `${path}.Meta`);
  if (type === 'account') {
    return { type, balance, owner: addressFromLotusJson(jsonField(meta, 'Owner'), `${path}.Meta.Owner`) };
  }
  if (type === 'multisig') {
    return {
      type,
      balance,
      signers: readJsonArray(jsonField(meta, 'Signers'), `${path}.Meta.Signers`, addressFromLotusJson),
      threshold: readJsonUint64(jsonField(meta, 'Threshold'), `${path}.Meta.Threshold`),
      vestingDuration: readJsonInt64(jsonField(meta, 'VestingDuration'), `${path}.Meta.VestingDuration`),
      vestingStart: readJsonInt64(jsonField(meta, 'VestingStart'), `${path}.Meta.VestingStart`),
    };
  }
  throw new GenesisError(`${path}.Type: unsupported actor type ${JSON.stringify(type)} (account or multisig)`);
}

/** A lotus-seed genesis-miner manifest (`pre-seal-<miner>.json`'s value). */
export function genesisMinerFromLotusJson(json: unknown, path = 'Miner'): GenesisMiner {
  const object = readJsonObject(json, path);
  const marketBalance = bigIntFromLotusJson(jsonField(object, 'MarketBalance'), `${path}.MarketBalance`);
  if (marketBalance !== 0n)
    throw new GenesisError(`${path}.MarketBalance: must be 0 (there is no storage market actor)`);
  const peerId = readString(jsonField(object, 'PeerId'), `${path}.PeerId`);
  let peerIdBytes: Uint8Array;
  try {
    peerIdBytes = base58btc.baseDecode(peerId);
  } catch (error) {
    throw new GenesisError(`${path}.PeerId: not a base58 peer ID: ${(error as Error).message}`);
  }
  return {
    id: addressFromLotusJson(jsonField(object, 'ID'), `${path}.ID`),
    owner: addressFromLotusJson(jsonField(object, 'Owner'), `${path}.Owner`),
    worker: addressFromLotusJson(jsonField(object, 'Worker'), `${path}.Worker`),
    peerId: peerIdBytes,
    sectorSize: readJsonUint64(jsonField(object, 'SectorSize'), `${path}.SectorSize`),
    sectors: readJsonArray(jsonField(object, 'Sectors'), `${path}.Sectors`, (value, at) => {
      const sector = readJsonObject(value, at);
      return {
        commR: readJsonCid(jsonField(sector, 'CommR'), `${at}.CommR`),
        commD: readJsonCid(jsonField(sector, 'CommD'), `${at}.CommD`),
        sectorNumber: readJsonUint64(jsonField(sector, 'SectorID'), `${at}.SectorID`),
        proofType: Number(readJsonInt64(jsonField(sector, 'ProofType'), `${at}.ProofType`)),
      };
    }),
  };
}

/** A Lotus genesis template (`lotus-seed genesis new`, `genesis add-miner`). */
export function genesisTemplateFromLotusJson(json: unknown, networkVersion: number): GenesisTemplate {
  const object = readJsonObject(json, 'Template');
  const version = jsonField(object, 'NetworkVersion');
  if (version !== undefined && Number(readJsonUint64(version, 'Template.NetworkVersion')) !== networkVersion) {
    throw new GenesisError(
      `Template.NetworkVersion: this network runs version ${networkVersion}, the template asks for ${version}`,
    );
  }
  const verifreg = jsonField(object, 'VerifregRootKey');
  if (verifreg !== undefined && verifreg !== null) {
    const balance = bigIntFromLotusJson(
      jsonField(readJsonObject(verifreg, 'Template.VerifregRootKey'), 'Balance'),
      'Template.VerifregRootKey.Balance',
    );
    if (balance !== 0n)
      throw new GenesisError('Template.VerifregRootKey: must have no balance (there is no verified registry actor)');
  }
  return {
    networkName: readString(jsonField(object, 'NetworkName'), 'Template.NetworkName'),
    timestamp: readJsonUint64(jsonField(object, 'Timestamp'), 'Template.Timestamp'),
    accounts: readJsonArray(jsonField(object, 'Accounts'), 'Template.Accounts', actorFromLotusJson),
    miners: readJsonArray(jsonField(object, 'Miners'), 'Template.Miners', genesisMinerFromLotusJson),
    remainderAccount: actorFromLotusJson(jsonField(object, 'RemainderAccount'), 'Template.RemainderAccount'),
  };
}
