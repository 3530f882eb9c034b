/**
 * The key a miner signs blocks, tickets and election proofs with: its worker, as the lookback state
 * records it, resolved to a BLS key address (Lotus `GetMinerWorkerRaw` + `ResolveToDeterministicAddress`).
 * Block VRFs are BLS signatures, so a worker with another key type cannot mine.
 */
import type { StateTree } from '../state/index.js';
import { type Address, AddressProtocol } from '../types/index.js';
import { keyAddressOf, minerInfo } from '../vm/index.js';
import { BlockCheckError, BlockErrorCode } from './errors.js';

export function minerWorkerKey(lookback: StateTree, miner: Address): Address {
  const key = keyAddressOf(lookback, minerInfo(lookback, miner).worker);
  if (key.protocol !== AddressProtocol.BLS) {
    throw new BlockCheckError(BlockErrorCode.BadMiner, `the worker key ${key} of ${miner} is not a BLS key`);
  }
  return key;
}
