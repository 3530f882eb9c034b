/**
 * The checks a gossiped block passes before it is forwarded (Lotus `sub/incoming.go`
 * `validateBlock`): not in the bad-block cache, well-formed (ticket, election proof with a
 * WinCount, signatures, an ID-address miner, message counts under the block limit), not from the
 * future, not older than finality, and — when we hold its parent — signed by the miner's worker
 * key at the lookback. A block whose parent we lack is not forwarded but still starts a sync.
 */
import type { ChainStore, TipSetStates } from '../chain/index.js';
import { lookbackForRound, minerWorkerKey } from '../consensus/index.js';
import { bls } from '../crypto/index.js';
import type { GossipVerdict } from '../net/index.js';
import type { NetworkParams } from '../params/index.js';
import { StateTree } from '../state/index.js';
import {
  AddressProtocol,
  type BlockMsg,
  blockCid,
  blockSigningBytes,
  SignatureType,
  TipSetKey,
} from '../types/index.js';
import type { BadBlockCache } from './bad-blocks.js';

/** Lotus `BlockMessageLimit`. */
const BLOCK_MESSAGE_LIMIT = 10_000;

export interface GossipBlockCheckInput {
  readonly chain: ChainStore;
  readonly states: TipSetStates;
  readonly params: NetworkParams;
  readonly badBlocks: BadBlockCache;
  readonly clock: () => number;
}

export type GossipBlockResult = { verdict: GossipVerdict; reason: string; parentKnown: boolean };

export async function checkGossipBlock(input: GossipBlockCheckInput, block: BlockMsg): Promise<GossipBlockResult> {
  const { header } = block;
  const cid = blockCid(header);
  const result = (verdict: GossipVerdict, reason: string, parentKnown = false): GossipBlockResult => ({
    verdict,
    reason,
    parentKnown,
  });
  if (input.badBlocks.has(cid)) return result('reject', `block ${cid} is in the bad-block cache`);
  if (header.ticket === null) return result('reject', 'block has no ticket');
  if (header.electionProof === null || header.electionProof.winCount < 1n) {
    return result('reject', 'block has no election proof with a positive WinCount');
  }
  if (header.blockSig === null || header.blockSig.type !== SignatureType.BLS)
    return result('reject', 'block has no BLS signature');
  if (header.blsAggregate === null) return result('reject', 'block has no BLS aggregate');
  if (header.miner.protocol !== AddressProtocol.ID)
    return result('reject', `block miner ${header.miner} is not an ID address`);
  if (block.blsMessages.length + block.secpkMessages.length > BLOCK_MESSAGE_LIMIT) {
    return result('reject', `block carries more than ${BLOCK_MESSAGE_LIMIT} messages`);
  }
  const now = BigInt(Math.floor(input.clock() / 1000));
  if (header.timestamp > now + input.params.blockDelaySecs) return result('ignore', 'block is from the future');
  const head = input.chain.head();
  if (header.height + input.params.chainFinality < head.height) return result('ignore', 'block is older than finality');
  // Only a parent the chain accepted (validated) may be used: its state is trusted.
  const parent = header.parents.every((p) => input.chain.hasBlock(p))
    ? input.chain.loadTipSet(TipSetKey.fromCids(header.parents))
    : undefined;
  if (parent === undefined || !input.chain.tipSetsAt(parent.height).some((t) => t.key.equals(parent.key))) {
    return result('ignore', 'parent unknown', false);
  }
  try {
    const lookback = await lookbackForRound(input.chain, input.states, parent, header.height);
    const workerKey = minerWorkerKey(StateTree.load(input.chain.blockstore, lookback.stateRoot), header.miner);
    if (!bls.verify(workerKey.payload, blockSigningBytes(header), header.blockSig.data)) {
      return result('reject', 'the block signature does not verify with the worker key', true);
    }
  } catch (error) {
    return result('reject', `cannot check the block signature: ${(error as Error).message}`, true);
  }
  return result('accept', '', true);
}
