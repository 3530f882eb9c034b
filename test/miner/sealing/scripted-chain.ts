/**
 * A TEST DOUBLE of the sealing pipeline's chain API — and only of that: the pipeline, the database
 * and the sealing are real. It is a small scripted chain: it mines an epoch every few milliseconds
 * while someone waits on it, includes pushed messages in the next epoch and "executes" the two
 * sealing methods the way the miner actor checks them (builtin-actors v18 `actors/miner/src/lib.rs`):
 * a pre-commit must carry a ticket from the last 3780 epochs and the deposit; a prove-commit must come
 * after the challenge delay with the pledge, and its proof must verify — with the native verifier —
 * against the randomness this chain draws for the miner's ID address and the zero CommD of a
 * committed-capacity sector. Randomness is Filecoin's draw over per-epoch digests; `reorgBeacon`
 * changes every beacon digest, as a reorg that replaced the tipsets carrying the entries would.
 */
import type { CID } from 'multiformats/cid';
import { blake2b256, DomainSeparationTag, drawRandomnessFromDigest } from '../../../src/crypto/index.js';
import { BitField } from '../../../src/ipld/index.js';
import type {
  PreCommitOnChain,
  SealingChainApi,
  SealingHead,
  SealingMessage,
  SealingMessageLookup,
  SealingMinerInfo,
} from '../../../src/miner/sealing/index.js';
import { DEVNET_2K } from '../../../src/params/index.js';
import { commDFromCid, commRFromCid, verifySeal, zeroCommDCid } from '../../../src/proofs/index.js';
import { Address, encodeAddress, messageCid } from '../../../src/types/index.js';
import { preCommitSectorBatch2Params, proveCommitSectors3Params } from '../../../src/vm/actors/miner/params.js';
import { MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK } from '../../../src/vm/actors/miner/policy.js';
import { MinerMethod } from '../../../src/vm/methods.js';

export const MINER = Address.newId(1000n);
const WORKER = Address.newId(1001n);
export const DEPOSIT = 1_000n;
export const PLEDGE = 5_000n;
/** builtin-actors exit codes the double answers with. */
const USR_ILLEGAL_ARGUMENT = 16n;
const USR_FORBIDDEN = 18n;
const USR_INSUFFICIENT_FUNDS = 19n;

export interface ExecutedMessage {
  readonly cid: CID;
  readonly message: SealingMessage;
  /** The epoch of the tipset that included it. */
  readonly epoch: bigint;
  readonly exitCode: bigint;
}

const encoder = new TextEncoder();

export class ScriptedChain implements SealingChainApi {
  height: bigint;
  /** The numbers the miner actor allocated (genesis pre-seals). */
  readonly allocated: Set<bigint>;
  readonly preCommits = new Map<bigint, PreCommitOnChain>();
  readonly proven = new Set<bigint>();
  readonly executed: ExecutedMessage[] = [];
  /** Every chain call, by method name, in order (what a test kills a child process after). */
  readonly calls: string[] = [];
  /** Calls that fail (as a node that is not synced fails them), by method name: how many more times. */
  readonly failing = new Map<string, number>();
  /** Exit code every pre-commit gets from now on, when set. */
  preCommitExitCode: bigint | undefined;
  readonly #epochMs: number;
  readonly #listeners = new Set<(head: SealingHead) => void>();
  readonly #pending: { cid: CID; message: SealingMessage }[] = [];
  readonly #sentByUuid = new Map<string, CID>();
  readonly #receipts = new Map<string, SealingMessageLookup>();
  #beaconSalt = 0;
  #nonce = 0n;
  #timer: NodeJS.Timeout | undefined;
  #mining = false;

  constructor(options: { height?: bigint; epochMs?: number; allocated?: readonly bigint[] } = {}) {
    this.height = options.height ?? 2000n;
    this.#epochMs = options.epochMs ?? 5;
    this.allocated = new Set(options.allocated ?? [0n, 1n]);
  }

  #record(method: string): void {
    this.calls.push(method);
    const failures = this.failing.get(method) ?? 0;
    if (failures === 0) return;
    this.failing.set(method, failures - 1);
    throw new Error(`${method}: the node is not synced`);
  }

  /** Every beacon draw changes from now on. */
  reorgBeacon(): void {
    this.#beaconSalt++;
  }

  /** Moves the head `epochs` ahead at once (empty epochs). */
  skip(epochs: bigint): void {
    this.height += epochs;
    this.#notify();
  }

  /** Stops mining (the end of a test). */
  close(): void {
    this.#listeners.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  ticket(epoch: bigint, entropy: Uint8Array): Uint8Array {
    return drawRandomnessFromDigest(
      blake2b256(encoder.encode(`ticket ${epoch}`)),
      DomainSeparationTag.SealRandomness,
      epoch,
      entropy,
    );
  }

  async chainHead(): Promise<SealingHead> {
    this.#record('chainHead');
    return { height: this.height };
  }

  chainNotify(listener: (head: SealingHead) => void): () => void {
    this.#listeners.add(listener);
    this.#schedule();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  async stateGetRandomnessFromTickets(
    tag: DomainSeparationTag,
    epoch: bigint,
    entropy: Uint8Array,
  ): Promise<Uint8Array> {
    this.#record('stateGetRandomnessFromTickets');
    this.#requirePast(epoch);
    return drawRandomnessFromDigest(blake2b256(encoder.encode(`ticket ${epoch}`)), tag, epoch, entropy);
  }

  async stateGetRandomnessFromBeacon(
    tag: DomainSeparationTag,
    epoch: bigint,
    entropy: Uint8Array,
  ): Promise<Uint8Array> {
    this.#record('stateGetRandomnessFromBeacon');
    this.#requirePast(epoch);
    return this.#beacon(tag, epoch, entropy);
  }

  async stateMinerInfo(miner: Address): Promise<SealingMinerInfo> {
    this.#record('stateMinerInfo');
    if (!miner.equals(MINER)) throw new Error(`actor ${miner} not found`);
    return { id: MINER, worker: WORKER, sectorSize: 2048n };
  }

  async stateMinerAllocated(): Promise<BitField> {
    this.#record('stateMinerAllocated');
    return BitField.of(this.allocated);
  }

  async stateMinerPreCommitDepositForPower(): Promise<bigint> {
    this.#record('stateMinerPreCommitDepositForPower');
    return DEPOSIT;
  }

  async stateMinerInitialPledgeForSector(duration: bigint, sectorSize: bigint): Promise<bigint> {
    this.#record('stateMinerInitialPledgeForSector');
    if (duration <= 0n || sectorSize !== 2048n)
      throw new Error(`bad pledge query: ${duration} epochs, ${sectorSize} bytes`);
    return PLEDGE;
  }

  async stateSectorPreCommitInfo(_miner: Address, sectorNumber: bigint): Promise<PreCommitOnChain | null> {
    this.#record('stateSectorPreCommitInfo');
    return this.preCommits.get(sectorNumber) ?? null;
  }

  async mpoolPushMessage(message: SealingMessage, msgUuid: string): Promise<CID> {
    this.#record('mpoolPushMessage');
    const sent = this.#sentByUuid.get(msgUuid);
    if (sent !== undefined) return sent;
    const cid = messageCid({
      ...message,
      nonce: this.#nonce++,
      gasLimit: 1_000_000n,
      gasFeeCap: 100n,
      gasPremium: 100n,
    });
    this.#sentByUuid.set(msgUuid, cid);
    this.#pending.push({ cid, message });
    return cid;
  }

  stateWaitMsg(message: CID, confidence: bigint, signal: AbortSignal): Promise<SealingMessageLookup> {
    this.#record('stateWaitMsg');
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const lookup = this.#receipts.get(message.toString());
        if (lookup === undefined || this.height < lookup.height + confidence) return false;
        unsubscribe();
        resolve(lookup);
        return true;
      };
      const unsubscribe = this.chainNotify(() => check());
      signal.addEventListener('abort', () => {
        unsubscribe();
        reject(new Error('aborted'));
      });
      check();
    });
  }

  #beacon(tag: DomainSeparationTag, epoch: bigint, entropy: Uint8Array): Uint8Array {
    const digest = blake2b256(encoder.encode(`beacon ${epoch} ${this.#beaconSalt}`));
    return drawRandomnessFromDigest(digest, tag, epoch, entropy);
  }

  #requirePast(epoch: bigint): void {
    if (epoch > this.height) throw new Error(`cannot draw randomness from the future: ${epoch} > ${this.height}`);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener({ height: this.height });
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#mining || this.#listeners.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#mining = true;
      void this.#mine().finally(() => {
        this.#mining = false;
        this.#schedule();
      });
    }, this.#epochMs);
  }

  /** A new epoch that includes the pending messages; their receipts come with the next one. */
  async #mine(): Promise<void> {
    this.height++;
    for (const { cid, message } of this.#pending.splice(0)) {
      const exitCode = await this.#execute(message, this.height);
      this.executed.push({ cid, message, epoch: this.height, exitCode });
      this.#receipts.set(cid.toString(), { exitCode, returnValue: new Uint8Array(0), height: this.height + 1n });
    }
    this.#notify();
  }

  async #execute(message: SealingMessage, epoch: bigint): Promise<bigint> {
    if (!message.to.equals(MINER) || !message.from.equals(WORKER)) return USR_FORBIDDEN;
    if (message.method === MinerMethod.PreCommitSectorBatch2) return this.#preCommit(message, epoch);
    if (message.method === MinerMethod.ProveCommitSectors3) return this.#proveCommit(message, epoch);
    return USR_ILLEGAL_ARGUMENT;
  }

  #preCommit(message: SealingMessage, epoch: bigint): bigint {
    if (this.preCommitExitCode !== undefined) return this.preCommitExitCode;
    const { sectors } = preCommitSectorBatch2Params.decode(message.params);
    if (message.value < DEPOSIT * BigInt(sectors.length)) return USR_INSUFFICIENT_FUNDS;
    for (const info of sectors) {
      const ticketAge = epoch - info.sealRandEpoch;
      if (ticketAge <= 0n || ticketAge > MAX_PRE_COMMIT_RANDOMNESS_LOOKBACK) return USR_ILLEGAL_ARGUMENT;
      if (this.allocated.has(info.sectorNumber) || info.unsealedCid !== null || info.dealIds.length > 0) {
        return USR_ILLEGAL_ARGUMENT;
      }
    }
    for (const info of sectors) {
      this.allocated.add(info.sectorNumber);
      this.preCommits.set(info.sectorNumber, { info, preCommitDeposit: DEPOSIT, preCommitEpoch: epoch });
    }
    return 0n;
  }

  async #proveCommit(message: SealingMessage, epoch: bigint): Promise<bigint> {
    const params = proveCommitSectors3Params.decode(message.params);
    if (params.sectorActivations.length !== 1 || params.sectorProofs.length !== 1) return USR_ILLEGAL_ARGUMENT;
    const [activation] = params.sectorActivations;
    const preCommit = this.preCommits.get(activation!.sectorNumber);
    if (preCommit === undefined || activation!.pieces.length > 0) return USR_ILLEGAL_ARGUMENT;
    const seedEpoch = preCommit.preCommitEpoch + DEVNET_2K.minerPolicy.preCommitChallengeDelay;
    if (epoch <= seedEpoch) return USR_FORBIDDEN;
    if (message.value < PLEDGE - preCommit.preCommitDeposit) return USR_INSUFFICIENT_FUNDS;
    const entropy = encodeAddress(MINER);
    const sealProof = Number(preCommit.info.sealProof) as 5;
    const valid = await verifySeal({
      minerId: MINER.id(),
      sectorNumber: preCommit.info.sectorNumber,
      ticket: this.ticket(preCommit.info.sealRandEpoch, entropy),
      seed: this.#beacon(DomainSeparationTag.InteractiveSealChallengeSeed, seedEpoch, entropy),
      proof: params.sectorProofs[0]!,
      commR: commRFromCid(preCommit.info.sealedCid),
      commD: commDFromCid(zeroCommDCid(sealProof)),
      sealProof,
    });
    if (!valid) return USR_ILLEGAL_ARGUMENT;
    this.preCommits.delete(preCommit.info.sectorNumber);
    this.proven.add(preCommit.info.sectorNumber);
    return 0n;
  }
}
