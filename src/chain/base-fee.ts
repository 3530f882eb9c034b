/**
 * The ParentBaseFee of a tipset's children (Lotus `ChainStore.ComputeBaseFee`; FIP-0115 from
 * genesis on our networks): from the tipset's own base fee and the premiums of the messages its
 * blocks carry, each block's BLS messages then its secp messages, in ticket order.
 */
import type { TipSet } from '../types/index.js';
import { computeNextBaseFee } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';

export function childBaseFee(chain: ChainStore, tipSet: TipSet): bigint {
  const messages = tipSet.blocks.flatMap((header) => {
    const { blsMessages, secpMessages } = chain.blockMessages(header);
    return [...blsMessages, ...secpMessages.map((signed) => signed.message)];
  });
  return computeNextBaseFee(messages, tipSet.parentBaseFee, chain.params);
}
