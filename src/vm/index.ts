/**
 * The state machine: applies messages and tipsets to the state tree with ledger-node's TypeScript
 * actors, charging gas by the FVM's price list, and produces receipts, execution traces and the
 * next base fee. Read-only views of actor state for other modules are in `queries.ts`.
 */
export { accountStateCodec, accountStateStruct } from './actors/account.js';
export { type FilterEstimate, filterEstimateStruct } from './actors/cbor.js';
export { cronStateCodec, cronStateStruct, encodeCronConstructorParams } from './actors/cron.js';
export { eamReturn, evmConstructorParams } from './actors/eam.js';
export { ethAddressOfActor } from './actors/evm/actor.js';
export { EMPTY_CODE_HASH, type EvmState, evmStateStruct } from './actors/evm/state.js';
export { EvmStorage } from './actors/evm/storage.js';
export { decodeU256, encodeU256 } from './actors/evm/u256.js';
export { initStateCodec } from './actors/init.js';
export { execParams, updateClaimedPowerParams } from './actors/method-params.js';
export { type DeadlineInfo, deadlineInfoStruct, newDeadlineInfo } from './actors/miner/deadline-info.js';
export {
  createMinerDeposit,
  initialPledgeForPower,
  type PledgeInputs,
  preCommitDepositForPower,
  withLotusEstimateMargin,
} from './actors/miner/monies.js';
export { internalSectorSetupForPresealParams } from './actors/miner/onboarding.js';
export {
  poStPartitionStruct,
  preCommitSectorBatch2Params,
  proveCommitSectors3Params,
  type SectorPreCommitInfo,
  sectorPreCommitInfoStruct,
  submitWindowedPoStParams,
} from './actors/miner/params.js';
export type { Partition } from './actors/miner/partition.js';
export {
  EPOCHS_IN_DAY,
  qaPowerForWeight,
  qaPowerMax,
  sectorSizeOfSealProof,
  sectorSizeOfWindowPoStProof,
  winningPoStProofOfSealProof,
} from './actors/miner/policy.js';
export { type SectorPreCommitOnChainInfo, sectorPreCommitOnChainInfoStruct } from './actors/miner/precommits.js';
export { activateAllUnproven } from './actors/miner/proving-state.js';
export {
  availableBalance,
  decodeMinerInfo,
  type MinerInfo,
  type MinerState,
  minerInfoStruct,
  minerStateCodec,
  minerStateStruct,
  type SectorOnChainInfo,
  sectorOnChainInfoStruct,
  unlockedBalance,
} from './actors/miner/state.js';
export {
  addSignerParams,
  amountLocked,
  encodeMultisigConstructorParams,
  encodeProposeParams,
  encodeTxnIdParams,
  getPendingTransaction,
  type MultisigConstructorParams,
  type MultisigState,
  type MultisigTransaction,
  multisigStateCodec,
  multisigStateStruct,
  pendingTransactions,
  proposalHashData,
  removeSignerParams,
  swapSignerParams,
  transactionStruct,
} from './actors/multisig.js';
export { decodeParamsToJson, encodeParamsFromJson, ParamsJsonError } from './actors/params-json.js';
export { type CreateMinerParams, encodeCreateMinerParams } from './actors/power.js';
export { type Claim, claimStruct, type PowerState, powerStateCodec, powerStateStruct } from './actors/power-state.js';
export { encodeAwardBlockRewardParams, PENALTY_MULTIPLIER } from './actors/reward.js';
export { type RewardState, rewardStateCodec, rewardStateStruct } from './actors/reward-state.js';
export { ACTOR_STATE_STRUCTS } from './actors/states.js';
export { type SystemState, systemStateCodec, systemStateStruct } from './actors/system.js';
export { type VestingFunds, vestingFundsStruct } from './actors/vesting-funds.js';
export {
  applyTipset,
  awardBlockRewardMessage,
  cronMessage,
  type TipsetApplication,
  type TipsetBlock,
  TipsetExecutor,
  type TipsetInput,
  type TipsetOptions,
} from './apply-tipset.js';
export {
  computeNextBaseFee,
  effectiveGasPremium,
  nextBaseFeeFromPremium,
  weightedPremiumPercentile,
} from './base-fee.js';
export { type CallOptions, callMessage, IMPLICIT_CALL_GAS_LIMIT } from './call-message.js';
export {
  blsChainMessage,
  type ChainMessage,
  signedChainMessage,
  signedMessageBytes,
  signingBytesOf,
  unsignedMessageCid,
} from './chain-message.js';
export { circulatingSupply } from './circulating-supply.js';
export { ActorError, OutOfGasError, VmError, VmErrorCode } from './errors.js';
export * from './execution-trace.js';
export { ExitCode } from './exit-code.js';
export { computeGasOutputs, computeGasOverestimationBurn, type GasOutputs } from './gas/gas-outputs.js';
export { onChainMessage, PRICES } from './gas/price-list.js';
export { selectTipsetMessages, type TipsetBlockMessages } from './message-selection.js';
export { verifySecpMessageSignatures } from './message-signatures.js';
export * from './methods.js';
export * from './queries.js';
export type * from './runtime.js';
export { type MessageApplication, Vm } from './vm.js';
export type { RandomnessSource, VmContext } from './vm-context.js';
