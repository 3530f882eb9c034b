/**
 * The networks `ledger daemon` can run, by the name config.toml and `--network` use. Their
 * constants come from `src/params`: mainnet's, or Lotus's 2k devnet (t addresses, 4 s epochs).
 */
import { DEVNET_2K, MAINNET, type NetworkParams } from '../params/index.js';

export const NETWORK_PRESETS = {
  mainnet: MAINNET,
  devnet: DEVNET_2K,
} as const satisfies Record<string, NetworkParams>;

export type NetworkName = keyof typeof NETWORK_PRESETS;
export const NETWORK_NAMES = Object.keys(NETWORK_PRESETS) as NetworkName[];

export function isNetworkName(value: unknown): value is NetworkName {
  return typeof value === 'string' && Object.hasOwn(NETWORK_PRESETS, value);
}
