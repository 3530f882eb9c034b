/**
 * The sealing pipeline's chain API over the node's in-process services: the chain store (head,
 * head changes, state), chain randomness as `StateGetRandomnessFromTickets/Beacon` serve it, the
 * message signer behind MpoolPushMessage and the message search behind StateWaitMsg. State reads
 * follow filecoin-project/lotus `node/impl/full/state.go`: the head's parent state, and the pledge
 * and deposit estimates with Lotus's 10% margin.
 */
import type { ChainStore } from '../../chain/index.js';
import type { MessageSearch } from '../../chain/message-search.js';
import { LOOKBACK_NO_LIMIT } from '../../chain/message-search.js';
import { ChainRandomness } from '../../chain/randomness.js';
import { bitFieldKind, getBlock } from '../../ipld/index.js';
import type { MessageSigner } from '../../mpool/index.js';
import type { NetworkParams } from '../../params/index.js';
import { REWARD_ACTOR_ID, StateTree } from '../../state/index.js';
import { Address, type CborNode, decodeCbor, signedMessageCid } from '../../types/index.js';
import {
  initialPledgeForPower,
  preCommitDepositForPower,
  withLotusEstimateMargin,
} from '../../vm/actors/miner/monies.js';
import { qaPowerForWeight, qaPowerMax } from '../../vm/actors/miner/policy.js';
import { getPrecommittedSector } from '../../vm/actors/miner/precommits.js';
import { rewardStateCodec } from '../../vm/actors/reward-state.js';
import { circulatingSupply, minerInfo, minerState, powerState } from '../../vm/index.js';
import type { SealingChainApi } from './chain-api.js';

export interface NodeSealingChainOptions {
  readonly chain: ChainStore;
  readonly params: NetworkParams;
  /** MpoolPushMessage: gas, nonce and the wallet's signature. */
  readonly signer: Pick<MessageSigner, 'pushMessage'>;
  /** StateWaitMsg. */
  readonly search: Pick<MessageSearch, 'wait'>;
}

export function nodeSealingChainApi(options: NodeSealingChainOptions): SealingChainApi {
  const { chain, params } = options;
  const headState = () => StateTree.load(chain.blockstore, chain.head().parentStateRoot);
  /** The reward and power estimates the miner actor prices deposits and pledges with. */
  const estimates = (tree: StateTree) => {
    const reward = rewardStateCodec.decode(
      getBlock(tree.store, tree.requireActor(REWARD_ACTOR_ID, 'reading the reward state').head, 'reward state'),
    );
    return { reward, power: powerState(tree) };
  };
  return {
    async chainHead() {
      return { height: chain.head().height };
    },
    chainNotify(listener) {
      return chain.subscribeHeadChanges(() => listener({ height: chain.head().height }));
    },
    async stateGetRandomnessFromTickets(tag, epoch, entropy) {
      return new ChainRandomness(chain, chain.head()).drawFromTickets(tag, epoch, entropy);
    },
    async stateGetRandomnessFromBeacon(tag, epoch, entropy) {
      return new ChainRandomness(chain, chain.head()).drawFromBeacon(tag, epoch, entropy);
    },
    async stateMinerInfo(miner) {
      const tree = headState();
      const info = minerInfo(tree, miner);
      return { id: Address.newId(tree.lookupId(miner)!), worker: info.worker, sectorSize: info.sectorSize };
    },
    async stateMinerAllocated(miner) {
      const tree = headState();
      const bytes = getBlock(tree.store, minerState(tree, miner).allocatedSectors, 'allocated sectors');
      return bitFieldKind.fromCbor(decodeCbor(bytes) as CborNode, 'allocated sectors');
    },
    // Lotus prices the deposit on the most QA power a sector of the miner's size can have, whatever the pre-commit says.
    async stateMinerPreCommitDepositForPower(miner) {
      const tree = headState();
      const { reward, power } = estimates(tree);
      const sectorSize = minerInfo(tree, miner).sectorSize;
      const deposit = preCommitDepositForPower(
        reward.thisEpochRewardSmoothed,
        power.thisEpochQaPowerSmoothed,
        qaPowerMax(sectorSize),
      );
      return withLotusEstimateMargin(deposit);
    },
    async stateMinerInitialPledgeForSector(duration, sectorSize, verifiedSize) {
      const tree = headState();
      const { reward, power } = estimates(tree);
      const qaPower = qaPowerForWeight(sectorSize, duration, verifiedSize * duration);
      const pledge = initialPledgeForPower(qaPower, {
        baselinePower: reward.thisEpochBaselinePower,
        rewardEstimate: reward.thisEpochRewardSmoothed,
        networkQaPowerEstimate: power.thisEpochQaPowerSmoothed,
        circulatingSupply: circulatingSupply(tree, params),
        epochsSinceRampStart: chain.head().height - power.rampStartEpoch,
        rampDurationEpochs: power.rampDurationEpochs,
      });
      return withLotusEstimateMargin(pledge);
    },
    async stateSectorPreCommitInfo(miner, sectorNumber) {
      const tree = headState();
      return getPrecommittedSector(tree.store, minerState(tree, miner), sectorNumber) ?? null;
    },
    async mpoolPushMessage(message, msgUuid) {
      const signed = await options.signer.pushMessage(
        { ...message, nonce: 0n, gasLimit: 0n, gasFeeCap: 0n, gasPremium: 0n },
        // maxFee 0: Lotus's default cap (0.07 FIL).
        { msgUuid, maxFee: 0n },
      );
      return signedMessageCid(signed);
    },
    async stateWaitMsg(message, confidence, signal) {
      const lookup = await options.search.wait(message, {
        confidence,
        limit: LOOKBACK_NO_LIMIT,
        allowReplaced: true,
        signal,
      });
      return { exitCode: lookup.receipt.exitCode, returnValue: lookup.receipt.return, height: lookup.height };
    },
  };
}
