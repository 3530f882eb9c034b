/**
 * Lotus `StateManager.Call` (filecoin-project/lotus chain/stmgr/call.go), what StateCall answers:
 * a message applied on a tipset's parent state at the tipset's epoch, after the tipset's own
 * messages from the same sender, without a signature, nonce or fees, and without keeping anything.
 */
import type { Message, TipSet } from '../types/index.js';
import { callMessage, type InvocResult } from '../vm/index.js';
import type { ChainStore } from './chain-store.js';
import { ChainRandomness } from './randomness.js';

export function callOnTipSet(chain: ChainStore, tipSet: TipSet, message: Message): InvocResult {
  // Lotus filters on the address as given (its own TODO notes it does not normalise `From`).
  const prior = chain.tipSetMessages(tipSet).filter((chainMessage) => chainMessage.message.from.equals(message.from));
  return callMessage(chain.blockstore, tipSet.parentStateRoot, message, {
    networkParams: chain.params,
    epoch: tipSet.height,
    timestamp: tipSet.timestamp,
    baseFee: tipSet.parentBaseFee,
    randomness: new ChainRandomness(chain, tipSet),
    prior,
    mode: { kind: 'implicit' },
  }).invocResult;
}
