/**
 * Message signature checks for the pool (Lotus `VerifyMsgSig`): a secp256k1 message must recover
 * to its f1 sender's key, a BLS message must verify against its f3 sender's key, both over the
 * unsigned message's CID bytes; a delegated (type 3) message must be the Ethereum transaction its
 * f410 sender signed for this network's chain id (Lotus `AuthenticateMessage`,
 * filecoin-project/lotus `chain/consensus/signatures.go`). Checks requested while the event loop is
 * busy with other requests are gathered and run together — a few secp256k1 recoveries right away,
 * more in parallel native batches off the main thread, BLS in one batched pairing check off it,
 * delegated ones (their transactions rebuilt a slice per event-loop turn) recovered the same way
 * as secp256k1 — and every success is remembered (Lotus's cache keys:
 * the chain CID for secp256k1 and delegated, blake2b-256 of CID ‖ signature for BLS), so a message
 * seen twice is checked once.
 */
import { availableParallelism } from 'node:os';
import { blake2b160, blake2b256, bls, secp256k1 } from '../crypto/index.js';
import { byteKey } from '../state/index.js';
import {
  AddressProtocol,
  delegatedAddressFromPublicKey,
  delegatedRecoveryInput,
  SignatureType,
  type SignedMessage,
} from '../types/index.js';
import { bytesEqual, concatBytes } from '../utils/bytes.js';
import { LruCache } from '../utils/lru-cache.js';
import { signedChainMessage, signingBytesOf } from '../vm/index.js';
import { MpoolError, MpoolErrorCode } from './errors.js';

/** Lotus VerifSigCacheSize. */
const VERIFIED_CACHE_SIZE = 32_000;
/** secp256k1 batches recovering at once: one per core, up to 4. */
const MAX_SECP_BATCHES = Math.max(1, Math.min(4, availableParallelism()));
/**
 * Up to this many waiting secp256k1 checks are recovered on the main thread: one recovery (~40 µs
 * with libsecp256k1) costs less than the thread-pool round trip the calls would wait for, and a few
 * block the event loop for well under a millisecond. MpoolPush over HTTP with 10 connections: about
 * 5,000/s instead of 4,000/s (bench:mpool). A flood gathers bigger batches, which go off-thread.
 */
const INLINE_SECP_MAX = 4;
/**
 * Delegated messages whose transactions are rebuilt (RLP payload, keccak-256) per event-loop turn,
 * so a flood of Ethereum transactions leaves other requests their turns: about 55 µs each on the
 * main thread (the key recovery, about 70 µs more, runs in the native batch), so 3–4 ms a turn.
 */
const DELEGATED_PER_TURN = 64;

/** What ecrecover takes for one check. */
interface RecoveryInput {
  readonly digest: Uint8Array;
  readonly signature: Uint8Array;
}

interface PendingCheck {
  readonly signed: SignedMessage;
  readonly key: string;
  readonly resolve: () => void;
  readonly reject: (error: MpoolError) => void;
}

export class SignatureVerifier {
  readonly #verified = new LruCache<string, true>(VERIFIED_CACHE_SIZE);
  #secp: PendingCheck[] = [];
  #bls: PendingCheck[] = [];
  #delegated: PendingCheck[] = [];
  #scheduled = false;
  /** secp256k1 batches being recovered; while all cores are busy, new checks gather into the next batch. */
  #secpInFlight = 0;
  readonly #eip155ChainId: number;

  /** `eip155ChainId`: the chain id delegated signatures must sign for (params `eip155ChainId`). */
  constructor(eip155ChainId: number) {
    this.#eip155ChainId = eip155ChainId;
  }

  /** Resolves when the signature is its sender's; rejects with ERR_MPOOL_INVALID_SIGNATURE. */
  verify(signed: SignedMessage): Promise<void> {
    let key: string;
    try {
      key = cacheKey(signed);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#verified.has(key)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = { signed, key, resolve, reject };
      this.#queueOf(signed.signature.type).push(check);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #queueOf(type: SignatureType): PendingCheck[] {
    if (type === SignatureType.BLS) return this.#bls;
    return type === SignatureType.Delegated ? this.#delegated : this.#secp;
  }

  #flush(): void {
    this.#scheduled = false;
    const blsChecks = this.#bls;
    this.#bls = [];
    if (blsChecks.length > 0) void this.#verifyBls(blsChecks);
    const delegatedChecks = this.#delegated;
    this.#delegated = [];
    if (delegatedChecks.length > 0) this.#verifyDelegated(delegatedChecks);
    this.#startSecpBatches();
  }

  /**
   * Rebuilds the transactions of a slice of delegated checks now (the rest on later turns), then
   * recovers their keys: right away when few wait, else in one native batch off the main thread.
   */
  #verifyDelegated(checks: readonly PendingCheck[]): void {
    if (checks.length > DELEGATED_PER_TURN) {
      setImmediate(() => this.#verifyDelegated(checks.slice(DELEGATED_PER_TURN)));
    }
    const ready: Array<{ check: PendingCheck; input: RecoveryInput }> = [];
    for (const check of checks.slice(0, DELEGATED_PER_TURN)) {
      try {
        ready.push({ check, input: delegatedRecoveryInput(check.signed, this.#eip155ChainId) });
      } catch (error) {
        check.reject(invalid(check.signed, (error as Error).message));
      }
    }
    if (ready.length <= INLINE_SECP_MAX) {
      for (const { check, input } of ready) this.#settleDelegated(check, recoverDigestOrNull(input));
      return;
    }
    secp256k1.recoverDigestBatch(ready.map(({ input }) => input)).then(
      (keys) => {
        ready.forEach(({ check }, index) => {
          this.#settleDelegated(check, keys[index] ?? null);
        });
      },
      (error: unknown) => {
        for (const { check } of ready) check.reject(invalid(check.signed, (error as Error).message));
      },
    );
  }

  /** Accepts the check when `key` (recovered from its signature) is its f410 sender's. */
  #settleDelegated(check: PendingCheck, key: Uint8Array | null): void {
    const from = check.signed.message.from;
    if (key === null) {
      check.reject(invalid(check.signed, 'no public key recovers from the signature'));
      return;
    }
    const signer = delegatedAddressFromPublicKey(key);
    if (signer.equals(from)) this.#accept(check);
    else check.reject(invalid(check.signed, `signature did not match: signed by ${signer}, not by the sender ${from}`));
  }

  /**
   * Starts recovering the waiting secp256k1 checks on the idle cores. Under load the batches grow
   * instead of multiplying, so the per-task cost of crossing into native code is paid per batch.
   */
  #startSecpBatches(): void {
    const idle = MAX_SECP_BATCHES - this.#secpInFlight;
    if (this.#secp.length === 0 || idle <= 0) return;
    const waiting = this.#secp;
    this.#secp = [];
    if (waiting.length <= INLINE_SECP_MAX) {
      for (const check of waiting) this.#settleSecp(check, recoverOrNull(check.signed));
      return;
    }
    const size = Math.ceil(waiting.length / idle);
    for (let start = 0; start < waiting.length; start += size) {
      this.#secpInFlight++;
      void this.#verifySecp(waiting.slice(start, start + size)).finally(() => {
        this.#secpInFlight--;
        this.#startSecpBatches();
      });
    }
  }

  async #verifySecp(checks: readonly PendingCheck[]): Promise<void> {
    const items = checks.map(({ signed }) => ({ signature: signed.signature.data, data: signingBytesOf(signed) }));
    let keys: Array<Uint8Array | null>;
    try {
      keys = await secp256k1.recoverBatch(items);
    } catch (error) {
      for (const check of checks) check.reject(invalid(check.signed, (error as Error).message));
      return;
    }
    checks.forEach((check, index) => {
      this.#settleSecp(check, keys[index] ?? null);
    });
  }

  /** Accepts the check when `key` (recovered from its signature) is its f1 sender's. */
  #settleSecp(check: PendingCheck, key: Uint8Array | null): void {
    const from = check.signed.message.from;
    if (key === null) {
      check.reject(invalid(check.signed, 'no public key recovers from the signature'));
    } else if (from.protocol !== AddressProtocol.Secp256k1 || !bytesEqual(blake2b160(key), from.payload)) {
      check.reject(invalid(check.signed, 'signature did not match'));
    } else {
      this.#accept(check);
    }
  }

  async #verifyBls(checks: readonly PendingCheck[]): Promise<void> {
    const verifiable: PendingCheck[] = [];
    for (const check of checks) {
      if (check.signed.message.from.protocol === AddressProtocol.BLS) verifiable.push(check);
      else check.reject(invalid(check.signed, 'a BLS signature needs a BLS (f3) sender'));
    }
    if (verifiable.length === 0) return;
    let verdicts: boolean[];
    try {
      verdicts = await bls.verifyBatch(
        verifiable.map(({ signed }) => ({
          publicKey: signed.message.from.payload,
          message: signingBytesOf(signed),
          signature: signed.signature.data,
        })),
      );
    } catch (error) {
      for (const check of verifiable) check.reject(invalid(check.signed, (error as Error).message));
      return;
    }
    verifiable.forEach((check, index) => {
      if (verdicts[index] === true) this.#accept(check);
      else check.reject(invalid(check.signed, 'bls signature failed to verify'));
    });
  }

  #accept(check: PendingCheck): void {
    this.#verified.set(check.key, true);
    check.resolve();
  }
}

/** The key the signature recovers, null when none does (what the batch call answers too). */
function recoverOrNull(signed: SignedMessage): Uint8Array | null {
  try {
    return secp256k1.recover(signed.signature.data, signingBytesOf(signed));
  } catch {
    return null;
  }
}

function recoverDigestOrNull({ signature, digest }: RecoveryInput): Uint8Array | null {
  try {
    return secp256k1.recoverDigest(signature, digest);
  } catch {
    return null;
  }
}

function cacheKey(signed: SignedMessage): string {
  const { type, data } = signed.signature;
  const cid = signedChainMessage(signed).cid;
  switch (type) {
    case SignatureType.Secp256k1:
      if (data.length !== secp256k1.SIGNATURE_LENGTH) {
        throw invalid(signed, `secp256k1 signature is ${data.length} bytes, expected ${secp256k1.SIGNATURE_LENGTH}`);
      }
      return byteKey(cid.bytes);
    case SignatureType.BLS:
      if (data.length !== bls.SIGNATURE_LENGTH) throw invalid(signed, 'bls signature incorrectly sized');
      return byteKey(blake2b256(concatBytes(cid.bytes, data)));
    case SignatureType.Delegated:
      // The chain CID covers the signature; its length depends on the transaction form, checked on verification.
      return byteKey(cid.bytes);
  }
}

function invalid(signed: SignedMessage, reason: string): MpoolError {
  const { cid } = signedChainMessage(signed);
  return new MpoolError(
    MpoolErrorCode.InvalidSignature,
    `signature verification failed: failed to validate signature: invalid signature for message ${cid} (type ${signed.signature.type}): ${reason}`,
  );
}
