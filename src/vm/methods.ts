/**
 * Method numbers of the actors we run (filecoin-project/builtin-actors `actors/<name>/src/lib.rs`).
 * Numbers of 2^24 and above are FRC-42 "exported" methods, derived from the method's name.
 */
import { blake2b } from '../crypto/index.js';

const FRC42_FIRST_METHOD_NUMBER = 1 << 24;

/**
 * FRC-42: the first 4-byte chunk of blake2b-512(`1|<name>`), read big-endian, that is at least
 * 2^24 (FIPs `FRCs/frc-0042.md`).
 */
export function frc42MethodNumber(name: string): bigint {
  const digest = blake2b(new TextEncoder().encode(`1|${name}`), 64);
  const view = new DataView(digest.buffer, digest.byteOffset, digest.byteLength);
  for (let offset = 0; offset + 4 <= digest.length; offset += 4) {
    const candidate = view.getUint32(offset);
    if (candidate >= FRC42_FIRST_METHOD_NUMBER) return BigInt(candidate);
  }
  throw new RangeError(`no FRC-42 method number for ${JSON.stringify(name)}`);
}

export const METHOD_SEND = 0n;
export const METHOD_CONSTRUCTOR = 1n;

export const AccountMethod = {
  PubkeyAddress: 2n,
  AuthenticateMessage: frc42MethodNumber('AuthenticateMessage'),
} as const;

export const InitMethod = { Exec: 2n, Exec4: 3n } as const;

export const CronMethod = { EpochTick: 2n } as const;

export const RewardMethod = { AwardBlockReward: 2n, ThisEpochReward: 3n, UpdateNetworkKPI: 4n } as const;

export const PowerMethod = {
  CreateMiner: 2n,
  UpdateClaimedPower: 3n,
  EnrollCronEvent: 4n,
  OnEpochTickEnd: 5n,
  UpdatePledgeTotal: 6n,
  CurrentTotalPower: 9n,
  CreateMinerExported: frc42MethodNumber('CreateMiner'),
  NetworkRawPowerExported: frc42MethodNumber('NetworkRawPower'),
  MinerRawPowerExported: frc42MethodNumber('MinerRawPower'),
  MinerCountExported: frc42MethodNumber('MinerCount'),
  MinerConsensusCountExported: frc42MethodNumber('MinerConsensusCount'),
  MinerPowerExported: frc42MethodNumber('MinerPower'),
} as const;

export const MinerMethod = {
  ControlAddresses: 2n,
  ChangeWorkerAddress: 3n,
  SubmitWindowedPoSt: 5n,
  TerminateSectors: 9n,
  DeclareFaults: 10n,
  DeclareFaultsRecovered: 11n,
  OnDeferredCronEvent: 12n,
  ApplyRewards: 14n,
  WithdrawBalance: 16n,
  InternalSectorSetupForPreseal: 17n,
  CompactPartitions: 19n,
  ConfirmChangeWorkerAddress: 21n,
  DisputeWindowedPoSt: 24n,
  PreCommitSectorBatch2: 28n,
  ExtendSectorExpiration2: 32n,
  ProveCommitSectors3: 34n,
  ChangeWorkerAddressExported: frc42MethodNumber('ChangeWorkerAddress'),
  WithdrawBalanceExported: frc42MethodNumber('WithdrawBalance'),
  ConfirmChangeWorkerAddressExported: frc42MethodNumber('ConfirmChangeWorkerAddress'),
} as const;

export const MultisigMethod = {
  Propose: 2n,
  Approve: 3n,
  Cancel: 4n,
  AddSigner: 5n,
  RemoveSigner: 6n,
  SwapSigner: 7n,
  ChangeNumApprovalsThreshold: 8n,
  LockBalance: 9n,
  UniversalReceiverHook: frc42MethodNumber('Receive'),
} as const;

/** What Ethereum transactions call on their f410 recipient, even plain transfers (EVM InvokeContract). */
export const EVM_INVOKE_CONTRACT_METHOD = frc42MethodNumber('InvokeEVM');

export const EamMethod = { Create: 2n, Create2: 3n, CreateExternal: 4n } as const;

export const EvmMethod = {
  Resurrect: 2n,
  GetBytecode: 3n,
  GetBytecodeHash: 4n,
  GetStorageAt: 5n,
  InvokeContractDelegate: 6n,
  InvokeContract: EVM_INVOKE_CONTRACT_METHOD,
} as const;
