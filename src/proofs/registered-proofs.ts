/**
 * Registered proof types as numbered on chain (go-state-types `abi/sector.go`). Devnets use 2 KiB
 * sectors sealed with StackedDrg2KiBV1_1, winning PoSt StackedDrgWinning2KiBV1 and window PoSt
 * StackedDrgWindow2KiBV1_1 (network version 19 on).
 */
export const RegisteredSealProof = {
  StackedDrg2KiBV1: 0,
  StackedDrg8MiBV1: 1,
  StackedDrg512MiBV1: 2,
  StackedDrg32GiBV1: 3,
  StackedDrg64GiBV1: 4,
  StackedDrg2KiBV1_1: 5,
  StackedDrg8MiBV1_1: 6,
  StackedDrg512MiBV1_1: 7,
  StackedDrg32GiBV1_1: 8,
  StackedDrg64GiBV1_1: 9,
} as const;
export type RegisteredSealProof = (typeof RegisteredSealProof)[keyof typeof RegisteredSealProof];

export const RegisteredPoStProof = {
  StackedDrgWinning2KiBV1: 0,
  StackedDrgWinning8MiBV1: 1,
  StackedDrgWinning512MiBV1: 2,
  StackedDrgWinning32GiBV1: 3,
  StackedDrgWinning64GiBV1: 4,
  StackedDrgWindow2KiBV1: 5,
  StackedDrgWindow8MiBV1: 6,
  StackedDrgWindow512MiBV1: 7,
  StackedDrgWindow32GiBV1: 8,
  StackedDrgWindow64GiBV1: 9,
  StackedDrgWindow2KiBV1_1: 10,
  StackedDrgWindow8MiBV1_1: 11,
  StackedDrgWindow512MiBV1_1: 12,
  StackedDrgWindow32GiBV1_1: 13,
  StackedDrgWindow64GiBV1_1: 14,
} as const;
export type RegisteredPoStProof = (typeof RegisteredPoStProof)[keyof typeof RegisteredPoStProof];

export const DEVNET_SEAL_PROOF = RegisteredSealProof.StackedDrg2KiBV1_1;
export const DEVNET_WINNING_POST_PROOF = RegisteredPoStProof.StackedDrgWinning2KiBV1;
export const DEVNET_WINDOW_POST_PROOF = RegisteredPoStProof.StackedDrgWindow2KiBV1_1;

const SECTOR_SIZES = [2048n, 8n << 20n, 512n << 20n, 32n << 30n, 64n << 30n];

/** Sector size in bytes of a seal proof (V1 and V1_1 alike). */
export function sectorSize(proof: RegisteredSealProof): bigint {
  return SECTOR_SIZES[proof % 5] as bigint;
}

/** Seal proof numbers come in families of five sector sizes (V1, V1_1, synthetic, NI-PoRep). */
const SEAL_PROOF_FAMILIES = 4;

/**
 * The window PoSt type a sector sealed with `sealProof` is proven with: V1_1 of its size
 * (go-state-types `abi/sector.go` RegisteredWindowPoStProof); undefined for an unknown number.
 */
export function windowPostProofOf(sealProof: number): RegisteredPoStProof | undefined {
  if (!Number.isInteger(sealProof) || sealProof < 0 || sealProof >= SEAL_PROOF_FAMILIES * 5) return undefined;
  return (RegisteredPoStProof.StackedDrgWindow2KiBV1_1 + (sealProof % 5)) as RegisteredPoStProof;
}
