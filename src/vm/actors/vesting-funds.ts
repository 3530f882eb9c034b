/**
 * A miner's vesting table (builtin-actors `actors/miner/src/vesting_state.rs`): locked funds by the
 * epoch they unlock, stored as the soonest entry inline and the rest in a separate block, so that
 * the common case — the next entry vesting — rewrites only the miner state.
 */
import { type Blockstore, getBlock, putCbor } from '../../ipld/index.js';
import { decodeChainCbor } from '../../types/cbor-node.js';
import { declareStruct, kinds, type StructValue } from '../../types/index.js';
import type { Mutable } from '../runtime.js';
import type { VestSpec } from './miner/policy.js';
import { quantizeUp } from './miner/quantize.js';

/** builtin-actors `actors/miner/src/vesting_state.rs` `VestingFund`: an amount and the epoch it unlocks. */
export const vestingFundStruct = declareStruct('VestingFund', [
  { key: 'epoch', json: 'Epoch', kind: kinds.int64, description: 'epoch' },
  { key: 'amount', json: 'Amount', kind: kinds.bigInt, description: 'attoFIL' },
]);
export type VestingFund = Mutable<StructValue<typeof vestingFundStruct>>;

/** builtin-actors `VestingFunds`: the soonest entry inline and the CID of the others' list. */
export const vestingFundsStruct = declareStruct('VestingFunds', [
  { key: 'head', json: 'Head', kind: vestingFundStruct.kind },
  { key: 'tail', json: 'Tail', kind: kinds.cid },
]);

/** The miner state's field: null when nothing is locked. */
export const vestingFundsKind = kinds.nullable(vestingFundsStruct.kind);
export type VestingFunds = StructValue<typeof vestingFundsStruct> | null;

const tailKind = kinds.array(vestingFundStruct.kind);

export function loadVestingFunds(store: Blockstore, funds: VestingFunds): VestingFund[] {
  if (funds === null) return [];
  const tail = tailKind.fromCbor(
    decodeChainCbor(getBlock(store, funds.tail, 'vesting funds'), 'vesting funds'),
    'VestingFunds',
  );
  return funds.head.amount > 0n ? [{ ...funds.head }, ...tail] : [...tail];
}

function saveVestingFunds(store: Blockstore, funds: readonly VestingFund[]): VestingFunds {
  const [head, ...rest] = funds;
  if (head === undefined) return null;
  return { head, tail: putCbor(store, tailKind.toCbor(rest, 'VestingFunds')) };
}

/** Removes the entries vesting before `epoch`; returns their sum. */
function takeVested(funds: VestingFund[], epoch: bigint): bigint {
  let vested = 0n;
  while (funds.length > 0 && funds[0]!.epoch < epoch) vested += funds.shift()!.amount;
  return vested;
}

/** Unlocks what has vested by `epoch` (and nothing unvested): the new table and the amount unlocked. */
export function unlockVestedFunds(
  store: Blockstore,
  funds: VestingFunds,
  epoch: bigint,
): { funds: VestingFunds; unlocked: bigint } {
  const { funds: remaining, vested } = unlockVestedAndUnvestedFunds(store, funds, epoch, 0n);
  return { funds: remaining, unlocked: vested };
}

/**
 * Locks `sum` to vest by `spec` from `epoch` (quantized from the proving period start), merging it
 * into the table, and unlocks what has already vested: the new table and the amount unlocked.
 */
export function addLockedFunds(
  store: Blockstore,
  funds: VestingFunds,
  epoch: bigint,
  sum: bigint,
  provingPeriodStart: bigint,
  spec: VestSpec,
): { funds: VestingFunds; unlocked: bigint } {
  const vestBegin = epoch + spec.initialDelay;
  const added = new Map<bigint, bigint>();
  let vestedSoFar = 0n;
  for (let at = vestBegin; vestedSoFar < sum; ) {
    at += spec.stepDuration;
    const vestEpoch = quantizeUp({ unit: spec.quantization, offset: provingPeriodStart }, at);
    const elapsed = vestEpoch - vestBegin;
    const target = elapsed < spec.vestPeriod ? (sum * elapsed) / spec.vestPeriod : sum;
    added.set(vestEpoch, (added.get(vestEpoch) ?? 0n) + target - vestedSoFar);
    vestedSoFar = target;
  }
  const merged = new Map<bigint, bigint>();
  for (const fund of loadVestingFunds(store, funds)) merged.set(fund.epoch, fund.amount);
  for (const [at, amount] of added) merged.set(at, (merged.get(at) ?? 0n) + amount);
  const table = [...merged]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([at, amount]) => ({ epoch: at, amount }));
  const unlocked = takeVested(table, epoch);
  return { funds: saveVestingFunds(store, table), unlocked };
}

/**
 * Unlocks everything vested by `epoch`, then up to `target` of what has not vested yet, soonest
 * first: the new table, the vested amount and the unvested amount unlocked.
 */
export function unlockVestedAndUnvestedFunds(
  store: Blockstore,
  funds: VestingFunds,
  epoch: bigint,
  target: bigint,
): { funds: VestingFunds; vested: bigint; unvested: bigint } {
  if (funds === null) return { funds, vested: 0n, unvested: 0n };
  if (funds.head.epoch >= epoch && funds.head.amount >= target) {
    return {
      funds: { ...funds, head: { ...funds.head, amount: funds.head.amount - target } },
      vested: 0n,
      unvested: target,
    };
  }
  let remaining = target;
  let vested = 0n;
  let unvested = 0n;
  const table = loadVestingFunds(store, funds);
  while (table.length > 0) {
    const fund = table[0]!;
    if (fund.epoch < epoch) {
      vested += fund.amount;
      table.shift();
      continue;
    }
    if (fund.amount < remaining) {
      remaining -= fund.amount;
      unvested += fund.amount;
      table.shift();
      continue;
    }
    unvested += remaining;
    fund.amount -= remaining;
    break;
  }
  return { funds: saveVestingFunds(store, table), vested, unvested };
}
