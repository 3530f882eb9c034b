//! Filecoin's on-chain numbers for registered proofs (go-state-types `abi/sector.go`). The
//! proofs-api enums have no discriminants, so the mapping is by name.

use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};

use crate::error::{ProofsError, Result};

/// Seal proofs as numbered on chain (0–9; the Rust-only synthetic and non-interactive variants are
/// not chain proofs and are left out).
const SEAL_PROOFS: [(i64, RegisteredSealProof); 10] = [
    (0, RegisteredSealProof::StackedDrg2KiBV1),
    (1, RegisteredSealProof::StackedDrg8MiBV1),
    (2, RegisteredSealProof::StackedDrg512MiBV1),
    (3, RegisteredSealProof::StackedDrg32GiBV1),
    (4, RegisteredSealProof::StackedDrg64GiBV1),
    (5, RegisteredSealProof::StackedDrg2KiBV1_1),
    (6, RegisteredSealProof::StackedDrg8MiBV1_1),
    (7, RegisteredSealProof::StackedDrg512MiBV1_1),
    (8, RegisteredSealProof::StackedDrg32GiBV1_1),
    (9, RegisteredSealProof::StackedDrg64GiBV1_1),
];

/// PoSt proofs as numbered on chain. Chain `StackedDrgWindow…V1_1` (10–14) is the proofs-api
/// `…V1_2` type (the grindability fix), as filecoin-ffi maps it.
const POST_PROOFS: [(i64, RegisteredPoStProof); 15] = [
    (0, RegisteredPoStProof::StackedDrgWinning2KiBV1),
    (1, RegisteredPoStProof::StackedDrgWinning8MiBV1),
    (2, RegisteredPoStProof::StackedDrgWinning512MiBV1),
    (3, RegisteredPoStProof::StackedDrgWinning32GiBV1),
    (4, RegisteredPoStProof::StackedDrgWinning64GiBV1),
    (5, RegisteredPoStProof::StackedDrgWindow2KiBV1),
    (6, RegisteredPoStProof::StackedDrgWindow8MiBV1),
    (7, RegisteredPoStProof::StackedDrgWindow512MiBV1),
    (8, RegisteredPoStProof::StackedDrgWindow32GiBV1),
    (9, RegisteredPoStProof::StackedDrgWindow64GiBV1),
    (10, RegisteredPoStProof::StackedDrgWindow2KiBV1_2),
    (11, RegisteredPoStProof::StackedDrgWindow8MiBV1_2),
    (12, RegisteredPoStProof::StackedDrgWindow512MiBV1_2),
    (13, RegisteredPoStProof::StackedDrgWindow32GiBV1_2),
    (14, RegisteredPoStProof::StackedDrgWindow64GiBV1_2),
];

/// The seal proof ledger-node devnets use: StackedDrg2KiBV1_1.
pub const DEVNET_SEAL_PROOF: i64 = 5;
/// Winning PoSt for V1_1 2 KiB sectors: StackedDrgWinning2KiBV1.
pub const DEVNET_WINNING_POST_PROOF: i64 = 0;
/// Window PoSt for V1_1 2 KiB sectors since network version 19: StackedDrgWindow2KiBV1_1 on chain.
pub const DEVNET_WINDOW_POST_PROOF: i64 = 10;

pub fn seal_proof(chain_id: i64) -> Result<RegisteredSealProof> {
    SEAL_PROOFS
        .iter()
        .find(|(id, _)| *id == chain_id)
        .map(|(_, proof)| *proof)
        .ok_or_else(|| ProofsError::invalid(format!("unknown registered seal proof {chain_id} (0 to 9 exist)")))
}

pub fn seal_proof_id(proof: RegisteredSealProof) -> i64 {
    SEAL_PROOFS
        .iter()
        .find(|(_, p)| *p == proof)
        .map(|(id, _)| *id)
        .expect("every seal proof this crate hands out is a chain proof")
}

pub fn post_proof(chain_id: i64) -> Result<RegisteredPoStProof> {
    POST_PROOFS
        .iter()
        .find(|(id, _)| *id == chain_id)
        .map(|(_, proof)| *proof)
        .ok_or_else(|| ProofsError::invalid(format!("unknown registered PoSt proof {chain_id} (0 to 14 exist)")))
}

pub fn post_proof_id(proof: RegisteredPoStProof) -> i64 {
    POST_PROOFS
        .iter()
        .find(|(_, p)| *p == proof)
        .map(|(id, _)| *id)
        .expect("every PoSt proof is numbered on chain")
}

#[cfg(test)]
mod tests {
    use super::*;
    use filecoin_proofs_api::PoStType;

    #[test]
    fn chain_numbers_round_trip() {
        for id in 0..10 {
            assert_eq!(seal_proof_id(seal_proof(id).unwrap()), id);
        }
        for id in 0..15 {
            assert_eq!(post_proof_id(post_proof(id).unwrap()), id);
        }
        assert!(seal_proof(10).is_err());
        assert!(post_proof(-1).is_err());
        assert!(post_proof(15).is_err());
    }

    #[test]
    fn numbers_follow_go_state_types() {
        assert_eq!(
            seal_proof(DEVNET_SEAL_PROOF).unwrap(),
            RegisteredSealProof::StackedDrg2KiBV1_1
        );
        assert_eq!(seal_proof(3).unwrap(), RegisteredSealProof::StackedDrg32GiBV1);
        assert_eq!(post_proof(DEVNET_WINNING_POST_PROOF).unwrap().typ(), PoStType::Winning);
        assert_eq!(
            post_proof(DEVNET_WINDOW_POST_PROOF).unwrap(),
            RegisteredPoStProof::StackedDrgWindow2KiBV1_2
        );
        assert_eq!(post_proof(8).unwrap(), RegisteredPoStProof::StackedDrgWindow32GiBV1);
        for id in 5..15 {
            assert_eq!(post_proof(id).unwrap().typ(), PoStType::Window);
        }
    }
}
