/**
 * ExtendSectorExpiration2 (builtin-actors v18 `actors/miner/src/lib.rs`
 * `extend_sector_expiration_inner`, `extend_sector_committment`): later expirations for live
 * sectors, rescheduled in their partitions' queues. A committed-capacity sector keeps its power and
 * pledge and gets a new power base epoch. Verified claims live in the verified registry, which this
 * chain does not have, so declarations that carry claims are refused.
 */
import { ExitCode } from '../../exit-code.js';
import type { Runtime } from '../../runtime.js';
import { decodeParams } from '../actor.js';
import { floorDiv } from '../math.js';
import { Deadlines } from './deadlines.js';
import { dailyProofFee, dailyProofFeeAdjust } from './monies.js';
import { validateExpiration } from './onboarding.js';
import { extendSectorExpiration2Params } from './params.js';
import { qaPowerForWeight } from './policy.js';
import { addPower, type PowerPair, ZERO_POWER } from './power-pair.js';
import { quantSpecOfDeadline } from './proving-state.js';
import { qaPowerForSector, Sectors } from './sectors.js';
import { minerInfo, notifyPledgeChanged, requestUpdatePower, validateCallerIsControl } from './sends.js';
import { minerStateCodec, SECTOR_FLAG_SIMPLE_QA_POWER, type SectorOnChainInfo } from './state.js';

/** From network version 26 a sector extended without a daily fee starts paying one (FIP-0100). */
const FIP_0100_GRACE_PERIOD_END_VERSION = 26;

function extendedSector(
  rt: Runtime,
  sector: SectorOnChainInfo,
  newExpiration: bigint,
  sectorSize: bigint,
): SectorOnChainInfo {
  if (sector.expiration < rt.epoch) {
    rt.abort(
      ExitCode.UsrForbidden,
      `cannot extend expiration for expired sector ${sector.sectorNumber} at ${sector.expiration}`,
    );
  }
  if (newExpiration < sector.expiration) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `cannot reduce sector ${sector.sectorNumber} expiration to ${newExpiration} from ${sector.expiration}`,
    );
  }
  validateExpiration(rt, sector.activation, newExpiration, Number(sector.sealProof));
  const remaining = sector.expiration - rt.epoch;
  const oldDuration = sector.expiration - sector.powerBaseEpoch;
  const simple = (sector.flags & SECTOR_FLAG_SIMPLE_QA_POWER) !== 0n;
  if (sector.verifiedDealWeight > 0n) {
    rt.abort(
      ExitCode.UsrIllegalArgument,
      `claim missing from declaration for sector ${sector.sectorNumber} with non-zero verified deal weight ${sector.verifiedDealWeight}`,
    );
  }
  const extended: SectorOnChainInfo = {
    ...sector,
    expiration: newExpiration,
    powerBaseEpoch: rt.epoch,
    // Spent deal weight goes; the rest is what the sector still carries.
    dealWeight: sector.dealWeight > 0n ? floorDiv(sector.dealWeight * remaining, oldDuration) : sector.dealWeight,
    ...(simple ? {} : { expectedDayReward: null, expectedStoragePledge: null, replacedDayReward: null }),
  };
  const newQa = qaPowerForWeight(
    sectorSize,
    extended.expiration - extended.powerBaseEpoch,
    extended.verifiedDealWeight,
  );
  if (extended.dailyFee === 0n) {
    if (rt.networkParams.networkVersion >= FIP_0100_GRACE_PERIOD_END_VERSION) {
      return { ...extended, dailyFee: dailyProofFee(rt.totalFilCirculatingSupply(), newQa) };
    }
    return extended;
  }
  const oldQa = qaPowerForSector(sectorSize, sector);
  return oldQa === newQa ? extended : { ...extended, dailyFee: dailyProofFeeAdjust(sector.dailyFee, oldQa, newQa) };
}

export function extendSectorExpiration2(rt: Runtime, params: Uint8Array | null): null {
  const { extensions } = decodeParams(params, extendSectorExpiration2Params);
  const policy = rt.networkParams.minerPolicy;
  for (const extension of extensions) {
    if (extension.deadline >= policy.wPoStPeriodDeadlines) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        `deadline ${extension.deadline} not in range 0..${policy.wPoStPeriodDeadlines}`,
      );
    }
    if (extension.sectorsWithClaims.length > 0) {
      rt.abort(
        ExitCode.UsrIllegalArgument,
        'sectors with verified claims cannot be extended: this chain has no verified registry',
      );
    }
  }
  const { powerDelta, pledgeDelta } = rt.transaction(minerStateCodec, (state) => {
    const info = minerInfo(rt, state);
    validateCallerIsControl(rt, info);
    const deadlines = Deadlines.load(rt.store, state.deadlines);
    const sectors = Sectors.load(rt.store, state.sectors);
    // Declarations grouped by deadline, deadlines in the order they first appear (as builtin-actors loads them).
    const byDeadline = new Map<bigint, typeof extensions>();
    for (const extension of extensions)
      byDeadline.set(extension.deadline, [...(byDeadline.get(extension.deadline) ?? []), extension]);
    let powerDelta: PowerPair = ZERO_POWER;
    let pledgeDelta = 0n;
    for (const [index, declarations] of byDeadline) {
      const deadline = deadlines.loadDeadline(rt.store, index);
      const quant = quantSpecOfDeadline(policy, state, index);
      let deadlinePower: PowerPair = ZERO_POWER;
      let deadlineFee = 0n;
      const partitionsByEpoch = new Map<bigint, bigint[]>();
      for (const declaration of declarations) {
        const partition = deadline.loadPartition(rt.store, declaration.partition);
        const oldSectors = sectors.loadSectors(declaration.sectors);
        const newSectors = oldSectors.map((s) => extendedSector(rt, s, declaration.newExpiration, info.sectorSize));
        sectors.store(newSectors);
        const delta = partition.replaceSectors(rt.store, oldSectors, newSectors, info.sectorSize, quant);
        deadlinePower = addPower(deadlinePower, delta.powerDelta);
        pledgeDelta += delta.pledgeDelta;
        deadlineFee += delta.dailyFeeDelta;
        deadline.savePartition(rt.store, declaration.partition, partition);
        partitionsByEpoch.set(declaration.newExpiration, [
          ...(partitionsByEpoch.get(declaration.newExpiration) ?? []),
          declaration.partition,
        ]);
      }
      deadline.livePower = addPower(deadline.livePower, deadlinePower);
      deadline.dailyFee += deadlineFee;
      powerDelta = addPower(powerDelta, deadlinePower);
      for (const [epoch, partitionIndices] of partitionsByEpoch) {
        deadline.addExpirationPartitions(rt.store, epoch, partitionIndices, quant);
      }
      deadlines.updateDeadline(rt.store, index, deadline);
    }
    state.sectors = sectors.flush();
    state.deadlines = deadlines.flush(rt.store);
    return { powerDelta, pledgeDelta };
  });
  requestUpdatePower(rt, powerDelta);
  notifyPledgeChanged(rt, pledgeDelta);
  return null;
}
