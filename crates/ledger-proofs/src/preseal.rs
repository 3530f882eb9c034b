//! Genesis sectors the way lotus-seed makes them: a full piece, PC1 and PC2 only (no SNARK, so no
//! parameters), then finalize and drop the unsealed copy. Genesis writes the commitments straight
//! into the miner's state.

use std::path::Path;

use filecoin_proofs_api::RegisteredSealProof;

use crate::error::Result;
use crate::piece::preseal_piece;
use crate::seal::{finalize_sector, precommit_sector, unpadded_sector_size, PreCommit};
use crate::sector_files::SectorFiles;

/// lotus-seed's default `--ticket-preimage`; the seal ticket is its blake2b-256.
pub const PRESEAL_TICKET_PREIMAGE: &[u8] = b"lotus is fire";

pub fn preseal_ticket() -> [u8; 32] {
    blake2b_simd::Params::new()
        .hash_length(32)
        .hash(PRESEAL_TICKET_PREIMAGE)
        .as_bytes()
        .try_into()
        .expect("32-byte digest")
}

/// Pre-seals sector `sector_number` of `miner_id` under `root` (lotus-seed's layout).
pub fn preseal_sector(root: &Path, proof: RegisteredSealProof, miner_id: u64, sector_number: u64) -> Result<PreCommit> {
    let files = SectorFiles::new(root, miner_id, sector_number);
    let piece = preseal_piece(miner_id, sector_number, unpadded_sector_size(proof));
    let pre_commit = precommit_sector(proof, &files, miner_id, sector_number, preseal_ticket(), piece)?;
    finalize_sector(&files)?;
    Ok(pre_commit)
}
