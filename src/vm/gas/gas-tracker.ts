import { OutOfGasError } from '../errors.js';
import type { GasCharge } from './price-list.js';

const MILLI = 1000;

/** Milligas to gas, rounded up (the FVM rounds the message's total up once, at the end). */
export function milligasToGas(milligas: number): bigint {
  return BigInt(Math.ceil(milligas / MILLI));
}

/**
 * Counts a message's gas in milligas against its limit. A charge that would exceed the limit uses
 * the gas up and throws `OutOfGasError` (ref-fvm GasTracker::apply_charge). `onCharge` sees every
 * charge, for execution traces.
 */
export class GasTracker {
  /** The message's limit, lowered while a send with its own gas limit runs (ref-fvm `push_limit`). */
  #limit: number;
  #used = 0;
  readonly #outerLimits: number[] = [];
  onCharge: ((charge: GasCharge) => void) | undefined;

  constructor(gasLimit: bigint) {
    this.#limit = Number(gasLimit) * MILLI;
  }

  charge(charge: GasCharge): void {
    this.onCharge?.(charge);
    const used = this.#used + charge.compute + charge.storage;
    if (used > this.#limit) {
      this.#used = this.#limit;
      throw new OutOfGasError(`out of gas: ${charge.name} needs ${used - this.#limit} milligas more than the limit`);
    }
    this.#used = used;
  }

  /** Caps the gas of the calls that follow at `gasLimit` more (or what is left, if less), until `popLimit`. */
  pushLimit(gasLimit: bigint): void {
    this.#outerLimits.push(this.#limit);
    const requested = this.#used + Number(gasLimit) * MILLI;
    if (requested < this.#limit) this.#limit = requested;
  }

  /** Restores the limit `pushLimit` lowered; the gas used meanwhile stays used. */
  popLimit(): void {
    const outer = this.#outerLimits.pop();
    if (outer === undefined) throw new Error('GasTracker: no gas limit to pop');
    this.#limit = outer;
  }

  get gasUsed(): bigint {
    return milligasToGas(this.#used);
  }

  get gasAvailable(): bigint {
    return BigInt(Math.floor((this.#limit - this.#used) / MILLI));
  }
}
