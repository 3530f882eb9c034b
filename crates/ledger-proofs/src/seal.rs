//! Sealing one sector: the piece and PC1/PC2 (pre-commit), C1/C2 (the commit proof), finalizing,
//! and verifying a seal proof. Each phase is a function of its own (benches time them one by one);
//! `precommit_sector` and `commit_sector` chain them.

use std::fs::{self, File, OpenOptions};
use std::io::Read;

use filecoin_proofs_api::seal::{
    clear_cache, seal_commit_phase1, seal_commit_phase2, seal_pre_commit_phase1, seal_pre_commit_phase2,
    verify_seal as api_verify_seal, write_and_preprocess, SealPreCommitPhase2Output,
};
// What PC1 and C1 hand to the next phase, kept whole so the phases can be called one by one.
pub use filecoin_proofs_api::seal::{SealCommitPhase1Output, SealPreCommitPhase1Output};
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
    let piece_info = add_piece(proof, files, piece)?;
    let phase1 = precommit_phase1(proof, files, miner_id, sector_number, ticket, piece_info.commitment)?;
    precommit_phase2(phase1, files)
}

/// AddPiece: fresh sector directories and the unsealed copy of one full-size piece read from
/// `piece`; returns the piece's CommP (the sector's CommD).
pub fn add_piece(proof: RegisteredSealProof, files: &SectorFiles, piece: impl Read) -> Result<PieceInfo> {
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
    Ok(piece_info)
}

/// The one full-size piece a sector holds, from its commitment.
fn full_piece(proof: RegisteredSealProof, comm_p: [u8; 32]) -> [PieceInfo; 1] {
    [PieceInfo {
        commitment: comm_p,
        size: UnpaddedBytesAmount(unpadded_sector_size(proof)),
    }]
}

/// PC1 (the SDR labels) of a sector `add_piece` filled with the piece committed to by `comm_p`.
pub fn precommit_phase1(
    proof: RegisteredSealProof,
    files: &SectorFiles,
    miner_id: u64,
    sector_number: u64,
    ticket: [u8; 32],
    comm_p: [u8; 32],
) -> Result<SealPreCommitPhase1Output> {
    configured_dirs()?;
    // PC1 wants the replica file to exist already.
    File::create(&files.sealed).map_err(|e| ProofsError::io(format!("creating {}", files.sealed.display()), e))?;
    Ok(seal_pre_commit_phase1(
        proof,
        &files.cache,
        &files.unsealed,
        &files.sealed,
        prover_id(miner_id),
        SectorId::from(sector_number),
        ticket,
        &full_piece(proof, comm_p),
    )?)
}

/// PC2 (tree C, tree R and the replica): the sector's commitments.
pub fn precommit_phase2(phase1: SealPreCommitPhase1Output, files: &SectorFiles) -> Result<PreCommit> {
    let phase2 = seal_pre_commit_phase2(phase1, &files.cache, &files.sealed)?;
    Ok(PreCommit {
        comm_r: phase2.comm_r,
        comm_d: phase2.comm_d,
    })
}

/// A sector `precommit_sector` left in place, and what its commit proves: the chain's ticket and
/// interactive seed, and its commitments.
pub struct SectorToCommit<'a> {
    pub proof: RegisteredSealProof,
    pub files: &'a SectorFiles,
    pub miner_id: u64,
    pub sector_number: u64,
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
    pub pre_commit: PreCommit,
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
    commit(&SectorToCommit {
        proof,
        files,
        miner_id,
        sector_number,
        ticket,
        seed,
        pre_commit: *pre_commit,
    })
}

/// `commit_sector` over a `SectorToCommit`.
pub fn commit(sector: &SectorToCommit<'_>) -> Result<Vec<u8>> {
    // Missing parameters fail before C1's work, not after it.
    require(Circuit::of_seal(sector.proof), Need::Proving)?;
    let phase1 = commit_phase1(sector)?;
    commit_phase2(phase1, sector.miner_id, sector.sector_number)
}

/// C1: the vanilla proofs of the challenged nodes, read from the sealed sector's files.
pub fn commit_phase1(sector: &SectorToCommit<'_>) -> Result<SealCommitPhase1Output> {
    sector.files.require_replica(sector.sector_number)?;
    let phase2 = SealPreCommitPhase2Output {
        registered_proof: sector.proof,
        comm_r: sector.pre_commit.comm_r,
        comm_d: sector.pre_commit.comm_d,
    };
    Ok(seal_commit_phase1(
        &sector.files.cache,
        &sector.files.sealed,
        prover_id(sector.miner_id),
        SectorId::from(sector.sector_number),
        sector.ticket,
        sector.seed,
        phase2,
        // One full-size piece: its commitment is the sector's CommD.
        &full_piece(sector.proof, sector.pre_commit.comm_d),
    )?)
}

/// C2: the Groth16 seal proof over C1's vanilla proofs. Needs the PoRep parameters.
pub fn commit_phase2(phase1: SealCommitPhase1Output, miner_id: u64, sector_number: u64) -> Result<Vec<u8>> {
    require(Circuit::of_seal(phase1.registered_proof), Need::Proving)?;
    Ok(seal_commit_phase2(phase1, prover_id(miner_id), SectorId::from(sector_number))?.proof)
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
