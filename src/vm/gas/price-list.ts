/**
 * The gas price list, modelled on the FVM's (ref-fvm `fvm/src/gas/price_list.rs`,
 * WATERMELON_PRICES, which TEEP_PRICES — network versions 25–28 — inherits except for seal
 * verification). Every number below is ref-fvm's, in whole gas; charges are kept in milligas like
 * the FVM's gas tracker and the message's total is rounded up.
 *
 * What we charge and what we do not, compared with the FVM:
 * - the same: OnChainMessage (message inclusion), OnChainReturnValue, OnValueTransfer,
 *   OnMethodInvocation (without the per-link term), actor lookup and update with the same
 *   "preloaded" and "already accessed" exemptions, OnCreateActor, signature verification, hashing,
 *   OnGetRandomness, OnVerifySeal and OnVerifyPost;
 * - block reads and writes of actor state are charged as the FVM's OnBlockOpenBase/OnBlockOpen and
 *   OnBlockCreate/OnBlockLink, by size, but without the per-CID-link terms (we do not scan blocks
 *   for links);
 * - not charged at all: wasm instructions and syscall overhead, because our actors are TypeScript,
 *   not wasm. A message that runs actor code therefore uses less gas here than on Lotus; a plain
 *   transfer (method 0) runs no actor code and costs exactly what the FVM charges.
 */

/** A gas charge in milligas, split as the FVM splits it: compute and storage ("other"). */
export interface GasCharge {
  readonly name: string;
  readonly compute: number;
  readonly storage: number;
}

const MILLI = 1000;

/** Gas constants, whole gas, with ref-fvm's field names. */
export const PRICES = {
  onChainMessageCompute: 38_863,
  onChainMessageStorageFlat: 36 * 1300,
  onChainMessageStoragePerByte: 1300,
  onChainReturnStoragePerByte: 1300,
  sendTransferFunds: 6000,
  sendInvokeMethod: 75_000,
  actorLookup: 500_000,
  actorUpdate: 475_000,
  actorCreateStorage: 650_000,
  addressLookup: 1_050_000,
  addressAssignment: 1_000_000,
  secp256k1VerifyFlat: 1_637_292,
  secp256k1VerifyPerByte: 10,
  blsVerifyFlat: 16_598_605,
  blsVerifyPerByte: 26,
  blake2b256PerByte: 10,
  /** block_open.flat: the cost of reading a block from the client's store. */
  blockOpenFlat: 187_440,
  /** ipld_link_checked: charged as compute on every block open. */
  blockOpenCompute: 300,
  /** block_memory_retention_minimum: every byte held in memory. */
  blockRetentionPerByte: 10,
  blockAllocatePerByte: 2,
  /** block_memcpy: 0.4 gas per byte. */
  blockMemcpyMilliPerByte: 400,
  blockPersistCompute: 172_000,
  blockPersistStorageFlat: 334_000,
  blockPersistStoragePerByte: 3340,
  /** ipld_link_tracked: charged once per new block linked into state. */
  blockLinkTracked: 300,
  /** lookback_cost.flat: walking up the chain 20 epochs at a time (5800 × 19), the draw (15000), the extern (21000). */
  lookbackFlat: 5800 * 19 + 15_000 + 21_000,
  lookbackPerEpoch: 75,
  /** TEEP_PRICES verify_seal_base (WATERMELON_PRICES had 2000). */
  verifySealBase: 42_000_000,
  /** verify_post_lookup: every window PoSt type ref-fvm lists costs the same; unlisted ones (2 KiB) fall back to 512 MiB's. */
  verifyPostFlat: 117_680_921,
  verifyPostPerSector: 43_780,
  eventPerEntryFlat: 2000,
  eventPerEntry: 1400,
  utf8ValidationFlat: 500,
  utf8ValidationPerByte: 16,
  /** EVENT_OVERHEAD and EVENT_ENTRY_OVERHEAD: bytes of CBOR framing per event and per entry. */
  eventOverheadBytes: 12,
  eventEntryOverheadBytes: 9,
  /**
   * Ours, not ref-fvm's: the FVM charges the wasm instructions of the EVM interpreter, which we do
   * not run; we charge each EVM instruction as a flat amount of compute gas instead.
   */
  evmInstruction: 2000,
} as const;

/** Actor IDs whose lookups are free: the singletons (FIP-0055). */
export const PRELOADED_ACTORS: ReadonlySet<bigint> = new Set([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 10n, 99n]);

function charge(name: string, computeGas: number, storageGas: number): GasCharge {
  return { name, compute: computeGas * MILLI, storage: storageGas * MILLI };
}

/**
 * Message inclusion, charged before execution. `chainLength` is the size of the message as the
 * chain stores it: the SignedMessage CBOR for secp256k1 and delegated signatures, the unsigned
 * Message CBOR for BLS. The storage part includes the sender's actor update.
 */
export function onChainMessage(chainLength: number): GasCharge {
  return charge(
    'OnChainMessage',
    PRICES.onChainMessageCompute,
    PRICES.actorUpdate + PRICES.onChainMessageStorageFlat + PRICES.onChainMessageStoragePerByte * chainLength,
  );
}

/** The top-level call's return value is stored in the receipt. */
export function onChainReturnValue(size: number): GasCharge {
  return charge('OnChainReturnValue', 0, PRICES.onChainReturnStoragePerByte * size);
}

export function onValueTransfer(): GasCharge {
  return charge('OnValueTransfer', PRICES.sendTransferFunds, 0);
}

export function onMethodInvocation(): GasCharge {
  return charge('OnMethodInvocation', PRICES.sendInvokeMethod, 0);
}

export function onActorLookup(): GasCharge {
  return charge('OnActorLookup', 0, PRICES.actorLookup);
}

export function onActorUpdate(): GasCharge {
  return charge('OnActorUpdate', 0, PRICES.actorUpdate);
}

/** A new actor; `newAddress` when it also gets a new ID mapped from a robust address. */
export function onCreateActor(newAddress: boolean): GasCharge {
  const assignment = newAddress ? PRICES.addressAssignment + PRICES.addressLookup : 0;
  return charge('OnCreateActor', 0, PRICES.actorCreateStorage + assignment);
}

export function onVerifySignature(kind: 'secp256k1' | 'bls', plaintextLength: number): GasCharge {
  const gas =
    kind === 'secp256k1'
      ? PRICES.secp256k1VerifyFlat + PRICES.secp256k1VerifyPerByte * plaintextLength
      : PRICES.blsVerifyFlat + PRICES.blsVerifyPerByte * plaintextLength;
  return charge('OnVerifySignature', gas, 0);
}

export function onHashing(length: number): GasCharge {
  return charge('OnHashing', PRICES.blake2b256PerByte * length, 0);
}

/** Reading a state block: OnBlockOpenBase plus OnBlockOpen's memory-retention minimum. */
export function onBlockOpen(size: number): GasCharge {
  return charge('OnBlockOpen', PRICES.blockOpenCompute, PRICES.blockOpenFlat + PRICES.blockRetentionPerByte * size);
}

/** Writing a state block: OnBlockCreate (retention minimum) plus OnBlockLink (hashing and persisting). */
export function onBlockWrite(size: number): GasCharge {
  const computeMilli =
    (PRICES.blockAllocatePerByte + PRICES.blake2b256PerByte) * size * MILLI +
    PRICES.blockMemcpyMilliPerByte * size +
    PRICES.blockLinkTracked * MILLI;
  const storageGas =
    PRICES.blockRetentionPerByte * size +
    PRICES.blockPersistCompute +
    PRICES.blockPersistStorageFlat +
    PRICES.blockPersistStoragePerByte * size;
  return { name: 'OnBlockWrite', compute: computeMilli, storage: storageGas * MILLI };
}

/** ref-fvm `on_actor_event`: validating, copying and hashing the event into the receipt's AMT. */
export function onActorEvent(entries: number, keyBytes: number, valueBytes: number): GasCharge {
  const size = PRICES.eventOverheadBytes + PRICES.eventEntryOverheadBytes * entries + keyBytes + valueBytes;
  const memMilli = PRICES.blockMemcpyMilliPerByte * size + PRICES.blockAllocatePerByte * size * MILLI;
  const validateMilli =
    (PRICES.eventPerEntryFlat + PRICES.eventPerEntry * entries) * MILLI +
    (PRICES.utf8ValidationFlat + PRICES.utf8ValidationPerByte * keyBytes) * MILLI;
  const hashMilli = PRICES.blake2b256PerByte * size * MILLI;
  return { name: 'OnActorEvent', compute: memMilli * 2 + validateMilli, storage: hashMilli + memMilli };
}

/** EVM instructions the interpreter ran (see `PRICES.evmInstruction`). */
export function onEvmInstructions(steps: number): GasCharge {
  return charge('OnEvmInstructions', PRICES.evmInstruction * steps, 0);
}

/** A randomness syscall reading `lookback` epochs back (ref-fvm `on_get_randomness`: "other" gas, not compute). */
export function onGetRandomness(lookback: bigint): GasCharge {
  return charge('OnGetRandomness', 0, PRICES.lookbackFlat + PRICES.lookbackPerEpoch * Number(lookback));
}

/** One seal proof, alone or in a batch (ref-fvm `on_verify_seal`, charged per info by `batch_verify_seals`). */
export function onVerifySeal(): GasCharge {
  return charge('OnVerifySeal', PRICES.verifySealBase, 0);
}

/** A window PoSt over `challengedSectors` sectors, counted before duplicates collapse (ref-fvm `on_verify_post`). */
export function onVerifyPost(challengedSectors: number): GasCharge {
  return charge('OnVerifyPost', PRICES.verifyPostFlat + PRICES.verifyPostPerSector * challengedSectors, 0);
}
