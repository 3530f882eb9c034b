/**
 * What the sealing pipeline needs from the chain: the narrow part of Lotus's full-node API its
 * pipeline calls (filecoin-project/lotus `storage/pipeline/fsm.go` `SealingAPI`), by the same names,
 * taking and returning the node's own types instead of Lotus JSON. State is read at the head.
 * `node-chain-api.ts` implements it over the node's in-process services.
 */
import type { CID } from 'multiformats/cid';
import type { DomainSeparationTag } from '../../crypto/index.js';
import type { BitField } from '../../ipld/index.js';
import type { Address } from '../../types/index.js';
import type { SectorPreCommitInfo } from '../../vm/actors/miner/params.js';

export interface SealingHead {
  readonly height: bigint;
}

/** Lotus `StateMinerInfo`, the fields sealing reads. */
export interface SealingMinerInfo {
  /** The miner's ID address: the entropy of its seal randomness and the prover ID of its proofs. */
  readonly id: Address;
  /** The key that sends the miner's messages. */
  readonly worker: Address;
  readonly sectorSize: bigint;
}

/** Lotus `miner.SectorPreCommitOnChainInfo`: a pre-commit the miner actor holds. */
export interface PreCommitOnChain {
  readonly info: SectorPreCommitInfo;
  readonly preCommitDeposit: bigint;
  readonly preCommitEpoch: bigint;
}

/** A message for the worker to send; gas and nonce are the node's to fill (MpoolPushMessage). */
export interface SealingMessage {
  readonly from: Address;
  readonly to: Address;
  readonly method: bigint;
  readonly value: bigint;
  readonly params: Uint8Array;
}

/** Where a message landed (Lotus `MsgLookup`), the fields sealing reads. */
export interface SealingMessageLookup {
  readonly exitCode: bigint;
  readonly returnValue: Uint8Array;
  /** The execution tipset's height. */
  readonly height: bigint;
}

export interface SealingChainApi {
  /** Lotus `ChainHead`. */
  chainHead(): Promise<SealingHead>;
  /** Lotus `ChainNotify`, reduced to the new head after each change; returns the unsubscribe function. */
  chainNotify(listener: (head: SealingHead) => void): () => void;
  stateGetRandomnessFromTickets(tag: DomainSeparationTag, epoch: bigint, entropy: Uint8Array): Promise<Uint8Array>;
  stateGetRandomnessFromBeacon(tag: DomainSeparationTag, epoch: bigint, entropy: Uint8Array): Promise<Uint8Array>;
  stateMinerInfo(miner: Address): Promise<SealingMinerInfo>;
  /** The sector numbers the miner actor has allocated (Lotus `StateMinerAllocated`). */
  stateMinerAllocated(miner: Address): Promise<BitField>;
  /** The deposit PreCommitSectorBatch2 needs for this sector, with Lotus's 10% margin. */
  stateMinerPreCommitDepositForPower(miner: Address, info: SectorPreCommitInfo): Promise<bigint>;
  /** The initial pledge of a sector of this size and duration, with Lotus's 10% margin. */
  stateMinerInitialPledgeForSector(duration: bigint, sectorSize: bigint, verifiedSize: bigint): Promise<bigint>;
  /** The pre-commit the miner holds for the sector, or null. */
  stateSectorPreCommitInfo(miner: Address, sectorNumber: bigint): Promise<PreCommitOnChain | null>;
  /**
   * Signs with the sender's wallet key and pushes; a second call with the same `msgUuid` returns the
   * first call's message instead of sending again (what lets a restarted pipeline push safely).
   */
  mpoolPushMessage(message: SealingMessage, msgUuid: string): Promise<CID>;
  /** Waits until the message has executed with `confidence` tipsets on top (Lotus `StateWaitMsg`). */
  stateWaitMsg(message: CID, confidence: bigint, signal: AbortSignal): Promise<SealingMessageLookup>;
}
