/**
 * The miner's money in its state (builtin-actors `actors/miner/src/state.rs`): locking rewards in
 * the vesting table, and paying fee debt from vesting funds or the unlocked balance.
 */
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { bigMin } from '../math.js';
import { addLockedFunds, unlockVestedAndUnvestedFunds, unlockVestedFunds } from '../vesting-funds.js';
import { REWARD_VESTING_SPEC } from './policy.js';
import { type MinerState, unlockedBalance } from './state.js';

/** Adds `amount` to the vesting table and locked funds; returns what had already vested and was unlocked. */
export function lockFunds(rt: Runtime, state: MinerState, amount: bigint): bigint {
  const { funds, unlocked } = addLockedFunds(
    rt.store,
    state.vestingFunds,
    rt.epoch,
    amount,
    state.provingPeriodStart,
    REWARD_VESTING_SPEC,
  );
  state.vestingFunds = funds;
  state.lockedFunds = state.lockedFunds - unlocked + amount;
  return unlocked;
}

/**
 * builtin-actors `repay_partial_debt_in_priority_order`: pays fee debt from locked funds (vested,
 * then soonest-vesting), then from the unlocked balance; what cannot be paid stays as debt.
 */
export function repayPartialDebt(rt: Runtime, state: MinerState): { toBurn: bigint; totalUnlocked: bigint } {
  let totalUnlocked = 0n;
  if (state.feeDebt !== 0n && state.lockedFunds !== 0n) {
    const unlocked = unlockVestedAndUnvestedFunds(rt.store, state.vestingFunds, rt.epoch, state.feeDebt);
    state.vestingFunds = unlocked.funds;
    totalUnlocked = unlocked.vested + unlocked.unvested;
    state.lockedFunds -= totalUnlocked;
  }
  const unlocked = unlockedBalance(state, rt.currentBalance());
  const toBurn = bigMin(unlocked, state.feeDebt);
  state.feeDebt -= toBurn;
  return { toBurn, totalUnlocked };
}

/** Unlocked balance repays the whole fee debt, or the method aborts (builtin-actors `repay_debts_or_abort`). */
export function repayDebtsOrAbort(rt: Runtime, state: MinerState): bigint {
  const unlocked = unlockedBalance(state, rt.currentBalance());
  if (unlocked < state.feeDebt) {
    rt.abort(ExitCode.UsrInsufficientFunds, `unlocked balance can not repay fee debt (${unlocked} < ${state.feeDebt})`);
  }
  const debt = state.feeDebt;
  state.feeDebt = 0n;
  return debt;
}

/** Unlocks what has vested by now; returns it (builtin-actors `State::unlock_vested_funds`). */
export function unlockVestedFundsNow(rt: Runtime, state: MinerState): bigint {
  if (state.lockedFunds === 0n) return 0n;
  const vested = unlockVestedFunds(rt.store, state.vestingFunds, rt.epoch);
  state.vestingFunds = vested.funds;
  state.lockedFunds -= vested.unlocked;
  if (state.lockedFunds < 0n)
    rt.abort(ExitCode.UsrIllegalState, `vesting cause locked funds to become negative: ${state.lockedFunds}`);
  return vested.unlocked;
}
