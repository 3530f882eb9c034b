/**
 * Protocol constants of a network, as plain data. Nothing reads a global: the node picks a preset
 * (or builds its own) and passes it to whatever needs it. Values and their names follow Lotus
 * `build/buildconstants` (params_shared_vals.go, params_2k.go, params_mainnet.go) and
 * builtin-actors' policy (filecoin-project/builtin-actors `runtime/src/runtime/policy.rs`).
 */

export interface NetworkParams {
  /** Preset name, for logs and errors. */
  readonly name: string;
  /** `t` for test networks, `f` for mainnet: the character addresses are rendered with. */
  readonly addressNetwork: 'f' | 't';
  /** The network version the chain runs from genesis (the devnet never upgrades). */
  readonly networkVersion: number;
  readonly blockDelaySecs: bigint;
  readonly propagationDelaySecs: bigint;
  /** Maximum sum of GasLimit of a block's messages. */
  readonly blockGasLimit: bigint;
  /** BlockGasLimit / 2: the gas a block targets. */
  readonly blockGasTarget: bigint;
  /** BlockGasLimit·80/100 − 1: the position of the FIP-0115 premium percentile. */
  readonly blockGasTargetIndex: bigint;
  readonly baseFeeMaxChangeDenom: bigint;
  /** The base fee never falls below this (attoFIL per gas). */
  readonly minimumBaseFee: bigint;
  /** The genesis block's ParentBaseFee. */
  readonly initialBaseFee: bigint;
  /** Raw byte power a miner needs to be eligible to win blocks (builtin-actors `minimum_consensus_power`). */
  readonly consensusMinerMinPower: bigint;
  readonly chainFinality: bigint;
  /**
   * How far back a round's power, worker key and winning PoSt sectors are read (Lotus
   * `GetWinningPoStSectorSetLookback`: ChainFinality on every network version we run).
   */
  readonly winningPoStLookback: bigint;
  /** Expected blocks per epoch (Expected Consensus; builtin-actors EXPECTED_LEADERS_PER_EPOCH). */
  readonly blocksPerEpoch: bigint;
  readonly blockMessageLimit: number;
  /** Total supply in attoFIL (FilBase · 10^18). */
  readonly totalFilecoin: bigint;
  /** The reward actor's genesis balance. */
  readonly initialRewardBalance: bigint;
  /** Epochs a miner waits before a new worker key takes effect (builtin-actors policy: ChainFinality). */
  readonly workerKeyChangeDelay: bigint;
  /** Window PoSt proof types new miners may use (builtin-actors `valid_post_proof_type`; sector sizes of the build). */
  readonly windowPoStProofTypes: readonly number[];
  readonly eip155ChainId: number;
  /** The storage miner actor's proving-period geometry and sector rules. */
  readonly minerPolicy: MinerPolicy;
}

/**
 * builtin-actors `runtime/src/runtime/policy.rs` `Policy`, the values that differ between networks or
 * that window PoSt timing depends on. All in epochs unless named otherwise.
 */
export interface MinerPolicy {
  /** Epochs each deadline's challenge window lasts (WPoStChallengeWindow). */
  readonly wPoStChallengeWindow: bigint;
  /** Deadlines per proving period (WPoStPeriodDeadlines, 48 everywhere). */
  readonly wPoStPeriodDeadlines: bigint;
  /** wPoStChallengeWindow × wPoStPeriodDeadlines (WPoStProvingPeriod). */
  readonly wPoStProvingPeriod: bigint;
  /** How far before a deadline opens its challenge randomness is drawn (WPoStChallengeLookback). */
  readonly wPoStChallengeLookback: bigint;
  /** How far before a deadline opens faults and recoveries must be declared (FaultDeclarationCutoff). */
  readonly faultDeclarationCutoff: bigint;
  /** How long after a deadline's window closes its optimistic proofs can be disputed (WPoStDisputeWindow). */
  readonly wPoStDisputeWindow: bigint;
  /** Epochs between pre-commit and the interactive seal seed (PreCommitChallengeDelay). */
  readonly preCommitChallengeDelay: bigint;
  /** Epochs a sector may stay faulty before it is terminated (FaultMaxAge, 42 proving periods). */
  readonly faultMaxAge: bigint;
  /** Seal proof types PreCommitSectorBatch2 accepts (valid_pre_commit_proof_type). */
  readonly preCommitProofTypes: readonly number[];
}

const FIL = 10n ** 18n;

/**
 * A policy whose 48 deadlines last `challengeWindow` epochs each. As Lotus's `SetWPoStChallengeWindow`
 * (filecoin-project/lotus `chain/actors/policy/policy.go`) scales it, the proving period, the dispute
 * window (30 windows) and the fault age (42 periods) follow the window; lookback and cutoff do not.
 */
function minerPolicy(
  challengeWindow: bigint,
  preCommitChallengeDelay: bigint,
  preCommitProofTypes: number[],
): MinerPolicy {
  const wPoStPeriodDeadlines = 48n;
  const wPoStProvingPeriod = challengeWindow * wPoStPeriodDeadlines;
  return {
    wPoStChallengeWindow: challengeWindow,
    wPoStPeriodDeadlines,
    wPoStProvingPeriod,
    wPoStChallengeLookback: 20n,
    faultDeclarationCutoff: 70n,
    wPoStDisputeWindow: challengeWindow * 30n,
    faultMaxAge: wPoStProvingPeriod * 42n,
    preCommitChallengeDelay,
    preCommitProofTypes,
  };
}
const BLOCK_GAS_LIMIT = 10_000_000_000n;

const SHARED = {
  networkVersion: 28,
  blockGasLimit: BLOCK_GAS_LIMIT,
  blockGasTarget: BLOCK_GAS_LIMIT / 2n,
  blockGasTargetIndex: (BLOCK_GAS_LIMIT * 80n) / 100n - 1n,
  baseFeeMaxChangeDenom: 8n,
  minimumBaseFee: 100n,
  initialBaseFee: 100_000_000n,
  chainFinality: 900n,
  winningPoStLookback: 900n,
  blocksPerEpoch: 5n,
  blockMessageLimit: 10_000,
  totalFilecoin: 2_000_000_000n * FIL,
  initialRewardBalance: 1_100_000_000n * FIL,
  workerKeyChangeDelay: 900n,
} as const;

/** Lotus's `2k` build: 4-second blocks, 2 KiB sectors, 2048 bytes of power to mine. */
export const DEVNET_2K: NetworkParams = {
  ...SHARED,
  name: 'devnet-2k',
  addressNetwork: 't',
  blockDelaySecs: 4n,
  propagationDelaySecs: 1n,
  consensusMinerMinPower: 2048n,
  // StackedDrgWindow2KiBV1_1 and StackedDrgWindow8MiBV1_1 (the `sector-2k` and `sector-8m` actor builds).
  windowPoStProofTypes: [10, 11],
  eip155ChainId: 31415926,
  // Lotus's 2k build keeps mainnet's 60-epoch window (a 3.2-hour proving period at 4 s): too slow to see a
  // pledged sector proven. Four-epoch deadlines make a 192-epoch period, 6.4 minutes at 2 s blocks.
  // Pre-commit delay 10 is builtin-actors' `short-precommit` build. Seal types: StackedDrg2KiB/8MiB V1_1
  // and their synthetic variants (builtin-actors `sector-2k`, `sector-8m`).
  minerPolicy: minerPolicy(4n, 10n, [5, 6, 10, 11]),
  // Lotus reads power at ChainFinality (900 epochs: an hour at 4 s blocks) before a new miner's first
  // win. Ten deadlines' worth (40 epochs) lets a freshly proven sector mine within three minutes; forks,
  // gossip and sync keep the 900-epoch finality.
  winningPoStLookback: 40n,
};

/** Mainnet's values (30-second epochs, 10 TiB minimum power), for a mainnet-like network. */
export const MAINNET: NetworkParams = {
  ...SHARED,
  name: 'mainnet',
  addressNetwork: 'f',
  blockDelaySecs: 30n,
  propagationDelaySecs: 10n,
  consensusMinerMinPower: 10n << 40n,
  // StackedDrgWindow32GiBV1_1 and StackedDrgWindow64GiBV1_1.
  windowPoStProofTypes: [13, 14],
  eip155ChainId: 314,
  // StackedDrg32GiB/64GiB V1_1 and their synthetic variants.
  minerPolicy: minerPolicy(60n, 150n, [8, 9, 13, 14]),
};
