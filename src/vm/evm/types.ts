/**
 * The EVM bridge's interface with the EVM actor (src/vm/evm/interpreter.ts runs code over an
 * `EvmHost`). 20-byte Ethereum addresses are `Uint8Array`s; words are `bigint`s.
 */

/** The running contract's view of the chain; the EVM actor implements it over its Runtime. */
export interface EvmHost {
  /** This contract's persistent storage (KAMT); 0n when absent. */
  storageGet(key: bigint): bigint;
  /** 0n deletes. */
  storageSet(key: bigint, value: bigint): void;
  /** EIP-1153 transient storage; it lives for the top-level message. */
  transientGet(key: bigint): bigint;
  transientSet(key: bigint, value: bigint): void;
  /** 0n for a missing actor. */
  balance(address: Uint8Array): bigint;
  /** EVM: its code; native actor: 0xfe; accounts, placeholders, missing: empty. */
  code(address: Uint8Array): Uint8Array;
  /** keccak per FEVM's rules; null = missing actor (EXTCODEHASH pushes 0). */
  codeHash(address: Uint8Array): Uint8Array | null;
  /**
   * CALL, STATICCALL, DELEGATECALL of a non-precompile address. `gas` is the stack's gas argument after
   * FEVM's stipend rule for CALL and STATICCALL (0 with value or 2300 without → 10,000,000); capping it
   * at 63/64 of what is left is the host's. DELEGATECALL has value 0: the callee inherits the running
   * frame's caller and value (`EvmContext`), which the host passes on.
   */
  call(request: {
    kind: 'call' | 'staticcall' | 'delegatecall';
    to: Uint8Array;
    value: bigint;
    input: Uint8Array;
    gas: bigint;
  }): { success: boolean; output: Uint8Array };
  /** null address: failed (the bridge pushes 0), output = revert data. */
  create(request: { kind: 'create' | 'create2'; value: bigint; initcode: Uint8Array; salt?: Uint8Array }): {
    address: Uint8Array | null;
    output: Uint8Array;
  };
  /** Throws ActorError(40) when the transfer fails. The run then stops with empty success. */
  selfDestruct(beneficiary: Uint8Array): void;
  /** LOG0..LOG4 → an actor event. Called in order, only for a run that succeeds or before a host request. */
  log(topics: Uint8Array[], data: Uint8Array): void;
  /** 32 bytes; zeros outside [epoch-256, epoch). */
  blockHash(epoch: bigint): Uint8Array;
  /**
   * PREVRANDAO, 32 bytes: asked only when the opcode runs, as builtin-actors draws the randomness
   * lazily (a draw costs gas and needs the current epoch's beacon entry).
   */
  prevRandao(): Uint8Array;
  /** FVM gas left (GAS opcode). */
  gasAvailable(): bigint;
  /**
   * FEVM's 0xfe00..01-06 precompiles, moving any value sent with the call to the precompile's address
   * after it runs; undefined = not a FEVM one (the call then succeeds with no data, and the bridge
   * moves the value as for Ethereum's precompiles: `transfer`).
   */
  precompile(
    address: Uint8Array,
    input: Uint8Array,
    call: { kind: 'call' | 'staticcall' | 'delegatecall'; value: bigint },
  ): { success: boolean; output: Uint8Array } | undefined;
  /**
   * Optional: moves `value` to `to`, as builtin-actors' `System::transfer` (METHOD_SEND) does with the
   * value of a call to a precompile the host does not run (Ethereum's, or an unassigned reserved
   * address; `precompiles/mod.rs` call_precompile); false when the transfer fails (the call then
   * fails). Without it the bridge sends the value with `call` and empty input.
   */
  transfer?(to: Uint8Array, value: bigint): boolean;
  /**
   * Optional: charges `steps` executed instructions as they run (before each host request, every
   * few thousand instructions, and at the end), so a long loop runs out of FVM gas by throwing
   * here. A host that has it must not charge `EvmOutcome.steps` again.
   */
  chargeSteps?(steps: number): void;
}

export interface EvmContext {
  address: Uint8Array;
  caller: Uint8Array;
  origin: Uint8Array;
  value: bigint;
  readOnly: boolean;
  chainId: bigint;
  epoch: bigint;
  timestamp: bigint;
  baseFee: bigint;
  gasPrice: bigint;
}

/** `steps`: the instructions the run executed (its own frame; nested calls count in their runs). */
export type EvmOutcome = (
  | { status: 'success'; output: Uint8Array }
  /** Exit 33; output = revert data. */
  | { status: 'revert'; output: Uint8Array }
  /** 34..40 as builtin-actors' EVM maps them, or 25 (USR_READ_ONLY) for a write in a read-only call. */
  | { status: 'error'; exitCode: number; message: string }
) & { steps?: number };
