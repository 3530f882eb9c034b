//! Sealing one sector: the piece and PC1/PC2 (pre-commit), C1/C2 (the commit proof), finalizing,
//! and verifying a seal proof.

use std::fs::{self, File, OpenOptions};
use std::io::Read;

use filecoin_proofs_api::seal::{
    clear_cache, seal_commit_phase1, seal_commit_phase2, seal_pre_commit_phase1, seal_pre_commit_phase2,
    verify_seal as api_verify_seal, write_and_preprocess, SealPreCommitPhase2Output,
};
use filecoin_proofs_api::{PieceInfo, RegisteredSealProof, SectorId, UnpaddedBytesAmount};

use crate::circuits::Circuit;
use crate::error::{ProofsError, Result};
use crate::inputs::{commitment, prover_id};
use crate::param_cache::{require, Need};
use crate::proof_bytes;
use crate::sector_files::SectorFiles;
use crate::settings::configured_dirs;

/// The commitments of a pre-committed sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreCommit {
    /// CommR: Poseidon root over the replica (with tree C).
    pub comm_r: [u8; 32],
    /// CommD: the sha256-trunc254 data commitment (equal to the piece's CommP for one full piece).
    pub comm_d: [u8; 32],
}

/// Bytes of user data a sector holds (fr32 padding takes 1/128).
pub fn unpadded_sector_size(proof: RegisteredSealProof) -> u64 {
    UnpaddedBytesAmount::from(proof.sector_size()).0
}

/// AddPiece, PC1 and PC2 of one sector holding a single full-size piece read from `piece`. Leaves
/// the unsealed copy and the whole cache, which the commit step needs.
pub fn precommit_sector(
    proof: RegisteredSealProof,
    files: &SectorFiles,
    miner_id: u64,
    sector_number: u64,
    ticket: [u8; 32],
    piece: impl Read,
) -> Result<PreCommit> {
    // PC1 writes the parent cache: the library's directories must be settled first.
    configured_dirs()?;
    prepare_directories(files)?;
    let unsealed = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&files.unsealed)
        .map_err(|e| ProofsError::io(format!("creating {}", files.unsealed.display()), e))?;
    let size = UnpaddedBytesAmount(unpadded_sector_size(proof));
    let (piece_info, written) = write_and_preprocess(proof, piece, unsealed, size)?;
    if written != size {
        return Err(ProofsError::invalid(format!(
            "the piece held {} bytes; a sector takes exactly {}",
            written.0, size.0
        )));
    }
    // PC1 wants the replica file to exist already.
    File::create(&files.sealed).map_err(|e| ProofsError::io(format!("creating {}", files.sealed.display()), e))?;
    let phase1 = seal_pre_commit_phase1(
        proof,
        &files.cache,
        &files.unsealed,
        &files.sealed,
        prover_id(miner_id),
        SectorId::from(sector_number),
        ticket,
        &[piece_info],
    )?;
    let phase2 = seal_pre_commit_phase2(phase1, &files.cache, &files.sealed)?;
    Ok(PreCommit {
        comm_r: phase2.comm_r,
        comm_d: phase2.comm_d,
    })
}

/// C1 and C2 of a sector `precommit_sector` left in place: the seal proof (192 bytes per
/// partition). Needs the PoRep parameters.
pub fn commit_sector(
    proof: RegisteredSealProof,
    files: &SectorFiles,
    miner_id: u64,
    sector_number: u64,
    ticket: [u8; 32],
    seed: [u8; 32],
    pre_commit: &PreCommit,
) -> Result<Vec<u8>> {
    require(Circuit::of_seal(proof), Need::Proving)?;
    files.require_replica(sector_number)?;
    // One full-size piece: its commitment is the sector's CommD.
    let pieces = [PieceInfo {
        commitment: pre_commit.comm_d,
        size: UnpaddedBytesAmount(unpadded_sector_size(proof)),
    }];
    let phase2 = SealPreCommitPhase2Output {
        registered_proof: proof,
        comm_r: pre_commit.comm_r,
        comm_d: pre_commit.comm_d,
    };
    let prover = prover_id(miner_id);
    let sector = SectorId::from(sector_number);
    let phase1 = seal_commit_phase1(
        &files.cache,
        &files.sealed,
        prover,
        sector,
        ticket,
        seed,
        phase2,
        &pieces,
    )?;
    Ok(seal_commit_phase2(phase1, prover, sector)?.proof)
}

/// What Lotus's FinalizeSector and lotus-seed's cleanup do: keep only what PoSt reads (the sealed
/// replica, tree-r-last and the aux files) and drop the unsealed copy.
pub fn finalize_sector(files: &SectorFiles) -> Result<()> {
    clear_cache(&files.cache)?;
    match fs::remove_file(&files.unsealed) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(ProofsError::io(format!("removing {}", files.unsealed.display()), e))
        }
        _ => Ok(()),
    }
}

pub struct SealToVerify<'a> {
    pub proof_type: RegisteredSealProof,
    pub miner_id: u64,
    pub sector_number: u64,
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
    pub comm_r: [u8; 32],
    pub comm_d: [u8; 32],
    pub proof: &'a [u8],
}

/// Checks a seal proof against its public inputs. Needs the PoRep verifying key only.
pub fn verify_seal(seal: &SealToVerify<'_>) -> Result<bool> {
    require(Circuit::of_seal(seal.proof_type), Need::Verifying)?;
    commitment("commR", &seal.comm_r)?;
    commitment("commD", &seal.comm_d)?;
    if !proof_bytes::decodes(seal.proof, seal.proof_type.partitions() as usize) {
        return Ok(false);
    }
    Ok(api_verify_seal(
        seal.proof_type,
        seal.comm_r,
        seal.comm_d,
        prover_id(seal.miner_id),
        SectorId::from(seal.sector_number),
        seal.ticket,
        seal.seed,
        seal.proof,
    )?)
}

/// Fresh directories: a cache left by an interrupted run would mix with the new labels.
fn prepare_directories(files: &SectorFiles) -> Result<()> {
    if files.cache.exists() {
        fs::remove_dir_all(&files.cache)
            .map_err(|e| ProofsError::io(format!("clearing {}", files.cache.display()), e))?;
    }
    for dir in [
        &files.cache,
        files.sealed.parent().expect("sector files live in a directory"),
        files.unsealed.parent().expect("sector files live in a directory"),
    ] {
        fs::create_dir_all(dir).map_err(|e| ProofsError::io(format!("creating {}", dir.display()), e))?;
    }
    Ok(())
}
