/**
 * Lotus's pledge and deposit estimators (filecoin-project/lotus `node/impl/full/state.go`
 * StateMinerInitialPledgeForSector, StateMinerPreCommitDepositForPower): builtin-actors' formulas
 * over the reward and power actors' state at the tipset, plus the 10% Lotus adds so that a message
 * sent with the estimate still covers the amount a few epochs later.
 */
import {
  estimatorPledgeInputs,
  initialPledgeForPower,
  preCommitDepositForPower,
  qaPowerForWeight,
  qaPowerMax,
  type SectorPreCommitInfo,
  sectorPreCommitInfoStruct,
  sectorSizeOfSealProof,
  withLotusEstimateMargin,
} from '../../vm/index.js';
import { bigIntResult } from '../chain-codecs.js';
import type { ParamDeclaration } from '../method.js';
import { int64Param, uint64Param } from '../params.js';
import { declareChainMethod } from './chain.js';
import { failCall, minerParam, parentStateOf, tipSetParam } from './state-miner-common.js';

export const stateMinerInitialPledgeForSector = declareChainMethod({
  name: 'StateMinerInitialPledgeForSector',
  description:
    "Estimates the initial pledge of a sector of a size and duration with `verifiedSize` bytes of verified deals, from the reward and power actors' state at the tipset; like Lotus it adds 10%.",
  permission: 'read',
  params: [
    int64Param('sectorDuration', 'epochs the sector will live'),
    uint64Param('sectorSize', 'bytes'),
    uint64Param('verifiedSize', 'bytes of verified deals in the sector'),
    tipSetParam,
  ],
  result: bigIntResult('attoFIL, 110% of the pledge'),
  handler: ([duration, sectorSize, verifiedSize, key], { chain }) => {
    // Lotus's checks and messages.
    if (duration <= 0n) failCall('sector duration must greater than 0');
    if (sectorSize === 0n) failCall('sector size must be non-zero');
    if (verifiedSize > sectorSize) failCall('verified size must be less than or equal to sector size');
    const { tipSet, tree } = parentStateOf(chain, key);
    const qaPower = qaPowerForWeight(sectorSize, duration, verifiedSize * duration);
    return withLotusEstimateMargin(
      initialPledgeForPower(qaPower, estimatorPledgeInputs(tree, tipSet.height, chain.params)),
    );
  },
});

const preCommitParam: ParamDeclaration<SectorPreCommitInfo, unknown> = {
  name: 'preCommit',
  description: 'the SectorPreCommitInfo (only SealProof is read)',
  schema: sectorPreCommitInfoStruct.schema,
  decode: (json, path) => sectorPreCommitInfoStruct.fromLotusJson(json, path),
};

export const stateMinerPreCommitDepositForPower = declareChainMethod({
  name: 'StateMinerPreCommitDepositForPower',
  description:
    "Estimates the deposit a pre-commit locks: that of the maximum quality-adjusted power of its seal proof's sector size (network version 17 on; the miner is not read), from the reward and power actors' state at the tipset; like Lotus it adds 10%.",
  permission: 'read',
  params: [minerParam, preCommitParam, tipSetParam],
  result: bigIntResult('attoFIL, 110% of the deposit'),
  handler: ([_miner, preCommit, key], { chain }) => {
    const sectorSize =
      sectorSizeOfSealProof(Number(preCommit.sealProof)) ??
      failCall(`failed to resolve sector size for seal proof: unsupported proof type: ${preCommit.sealProof}`);
    const { tipSet, tree } = parentStateOf(chain, key);
    const inputs = estimatorPledgeInputs(tree, tipSet.height, chain.params);
    const deposit = preCommitDepositForPower(
      inputs.rewardEstimate,
      inputs.networkQaPowerEstimate,
      qaPowerMax(sectorSize),
    );
    return withLotusEstimateMargin(deposit);
  },
});

export const stateMinerPledgeMethods = [stateMinerInitialPledgeForSector, stateMinerPreCommitDepositForPower];
