/**
 * The pool's tunables (Lotus `types.MpoolConfig`, filecoin-project/lotus
 * `chain/messagepool/config.go`): not in config.toml but managed through
 * MpoolGetConfig/MpoolSetConfig and kept in the database as Lotus JSON. `ReplaceByFeeRatio` is a
 * percentage written as a decimal (125 → 1.25), `PruneCooldown` a Go duration in nanoseconds.
 */
import {
  type Address,
  addressFromLotusJson,
  addressToLotusJson,
  jsonFail,
  jsonField,
  readJsonArray,
  readJsonInt64,
  readJsonObject,
} from '../types/index.js';
import { MpoolError, MpoolErrorCode } from './errors.js';

export interface MpoolConfig {
  /** Senders whose messages are selected first and never pruned. */
  readonly priorityAddrs: readonly Address[];
  /** Pruning starts when the pool holds more messages than this… */
  readonly sizeLimitHigh: number;
  /** …and keeps this many. */
  readonly sizeLimitLow: number;
  /** Percent: the premium increase `mpool replace --auto` offers (admission only needs 110). */
  readonly replaceByFeeRatio: number;
  /** Nanoseconds between two prunes. */
  readonly pruneCooldownNs: bigint;
  /** GasEstimateMessageGas multiplies the gas used by this. */
  readonly gasLimitOverestimation: number;
}

/** The replace-by-fee increase admission requires, in percent (Lotus ReplaceByFeePercentageMinimum). */
export const REPLACE_BY_FEE_MINIMUM_PERCENT = 110;

export const DEFAULT_MPOOL_CONFIG: MpoolConfig = {
  priorityAddrs: [],
  sizeLimitHigh: 30_000,
  sizeLimitLow: 20_000,
  replaceByFeeRatio: 125,
  pruneCooldownNs: 60_000_000_000n,
  gasLimitOverestimation: 1.25,
};

export interface MpoolConfigJson {
  PriorityAddrs: string[] | null;
  SizeLimitHigh: number;
  SizeLimitLow: number;
  ReplaceByFeeRatio: number;
  PruneCooldown: number | bigint;
  GasLimitOverestimation: number;
}

/** Lotus's `Percent.String`: 125 → `1.25`, 110 → `1.10`. */
function formatPercent(percent: number): string {
  const magnitude = Math.abs(percent);
  return `${percent < 0 ? '-' : ''}${Math.trunc(magnitude / 100)}.${magnitude % 100}`;
}

export function validateMpoolConfig(config: MpoolConfig): void {
  if (config.replaceByFeeRatio < REPLACE_BY_FEE_MINIMUM_PERCENT) {
    throw new MpoolError(
      MpoolErrorCode.InvalidConfig,
      `'ReplaceByFeeRatio' is less than required ${formatPercent(config.replaceByFeeRatio)} < ${formatPercent(REPLACE_BY_FEE_MINIMUM_PERCENT)}`,
    );
  }
  if (!(config.gasLimitOverestimation >= 1)) {
    throw new MpoolError(MpoolErrorCode.InvalidConfig, "'GasLimitOverestimation' cannot be less than 1");
  }
}

export function mpoolConfigToLotusJson(config: MpoolConfig): MpoolConfigJson {
  const cooldown = config.pruneCooldownNs;
  return {
    PriorityAddrs: config.priorityAddrs.length === 0 ? null : config.priorityAddrs.map(addressToLotusJson),
    SizeLimitHigh: config.sizeLimitHigh,
    SizeLimitLow: config.sizeLimitLow,
    ReplaceByFeeRatio: config.replaceByFeeRatio / 100,
    PruneCooldown: cooldown <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(cooldown) : cooldown,
    GasLimitOverestimation: config.gasLimitOverestimation,
  };
}

function readInt(json: unknown, path: string): number {
  const value = readJsonInt64(json, path);
  if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    jsonFail(path, 'an integer of at most 2^53', json);
  }
  return Number(value);
}

/** Lotus's `Percent.UnmarshalJSON`: the decimal times 100, which must come out whole. */
function readPercent(json: unknown, path: string): number {
  if (json === undefined || json === null) return 0;
  if (typeof json !== 'number' && typeof json !== 'bigint') jsonFail(path, 'a decimal number such as 1.25', json);
  // Scaling the decimal text, not the float, keeps 1.1 exactly 110.
  const percent = Number(`${String(json)}e2`);
  if (!Number.isInteger(percent)) jsonFail(path, 'a ratio with at most two decimals', json);
  return percent;
}

function readFloat(json: unknown, path: string): number {
  if (json === undefined || json === null) return 0;
  if (typeof json === 'bigint') return Number(json);
  if (typeof json !== 'number') jsonFail(path, 'a number', json);
  return json;
}

/** Decodes Lotus JSON as Go does: absent fields take their zero value. */
export function mpoolConfigFromLotusJson(json: unknown, path = 'MpoolConfig'): MpoolConfig {
  const object = readJsonObject(json, path);
  return {
    priorityAddrs: readJsonArray(jsonField(object, 'PriorityAddrs'), `${path}.PriorityAddrs`, addressFromLotusJson),
    sizeLimitHigh: readInt(jsonField(object, 'SizeLimitHigh'), `${path}.SizeLimitHigh`),
    sizeLimitLow: readInt(jsonField(object, 'SizeLimitLow'), `${path}.SizeLimitLow`),
    replaceByFeeRatio: readPercent(jsonField(object, 'ReplaceByFeeRatio'), `${path}.ReplaceByFeeRatio`),
    pruneCooldownNs: readJsonInt64(jsonField(object, 'PruneCooldown'), `${path}.PruneCooldown`),
    gasLimitOverestimation: readFloat(jsonField(object, 'GasLimitOverestimation'), `${path}.GasLimitOverestimation`),
  };
}
