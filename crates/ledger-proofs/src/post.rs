//! Proofs of spacetime over sealed sectors: winning PoSt (block production) and window PoSt
//! (the 24-hour proving deadlines). Chain randomness is masked into a field element here.

use std::collections::BTreeMap;
use std::path::Path;

use filecoin_proofs_api::post::{
    generate_window_post as api_generate_window_post, generate_winning_post as api_generate_winning_post,
    generate_winning_post_sector_challenge, get_num_partition_for_fallback_post,
    verify_window_post as api_verify_window_post, verify_winning_post as api_verify_winning_post,
};
use filecoin_proofs_api::{PoStType, PrivateReplicaInfo, PublicReplicaInfo, RegisteredPoStProof, SectorId};

use crate::circuits::Circuit;
use crate::error::{ProofsError, Result};
use crate::groth16::proving_key;
use crate::inputs::{mask_post_randomness, prover_id};
use crate::param_cache::{require, Need};
use crate::proof_bytes;
use crate::sector_files::SectorFiles;
use crate::settings::configured_dirs;
use crate::winning_snark::{self, ChallengedSectors};

/// A sector as the chain knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoStSector {
    pub sector_number: u64,
    pub comm_r: [u8; 32],
}

/// The public inputs of a PoSt; `randomness` is the chain's, unmasked.
#[derive(Clone, Copy, Debug)]
pub struct PoStInputs<'a> {
    pub proof_type: RegisteredPoStProof,
    pub miner_id: u64,
    pub randomness: [u8; 32],
    pub sectors: &'a [PoStSector],
}

/// Indices into a proving set of `sector_count` sectors that winning PoSt challenges (one for
/// every current proof type), as Lotus's `GenerateWinningPoStSectorChallenge`.
pub fn winning_post_sector_challenge(
    proof_type: RegisteredPoStProof,
    miner_id: u64,
    randomness: [u8; 32],
    sector_count: u64,
) -> Result<Vec<u64>> {
    expect_type(proof_type, PoStType::Winning)?;
    if sector_count == 0 {
        return Err(ProofsError::invalid(
            "winning PoSt needs at least one sector in the proving set",
        ));
    }
    Ok(generate_winning_post_sector_challenge(
        proof_type,
        &mask_post_randomness(randomness),
        sector_count,
        prover_id(miner_id),
    )?)
}

/// Reads the winning PoSt proving key of `proof_type` into memory now (about 0.25 s for 2 KiB), so a
/// miner's first proof does not pay for it. A no-op for circuits the library proves itself.
pub fn preload_winning_post_key(proof_type: RegisteredPoStProof) -> Result<()> {
    expect_type(proof_type, PoStType::Winning)?;
    if let Some(circuit) = Circuit::of_post(proof_type) {
        require(Some(circuit), Need::Proving)?;
        proving_key(&configured_dirs()?.parameter_cache.join(circuit.params_file_name()))?;
    }
    Ok(())
}

/// A winning PoSt over the challenged sectors, whose replicas are under `root`.
pub fn generate_winning_post(root: &Path, post: &PoStInputs<'_>) -> Result<Vec<u8>> {
    expect_type(post.proof_type, PoStType::Winning)?;
    expect_challenged_count(post)?;
    require(Circuit::of_post(post.proof_type), Need::Proving)?;
    let replicas = private_replicas(root, post)?;
    let randomness = mask_post_randomness(post.randomness);
    let proof = match Circuit::of_post(post.proof_type) {
        // The devnet circuit: our prover (src/groth16), about 1.5x less CPU than the library's.
        Some(circuit) => {
            let key = proving_key(&configured_dirs()?.parameter_cache.join(circuit.params_file_name()))?;
            let challenged = ChallengedSectors {
                root,
                miner_id: post.miner_id,
                sectors: post.sectors,
            };
            winning_snark::generate(
                post.proof_type,
                &randomness,
                prover_id(post.miner_id),
                &challenged,
                &key,
            )?
        }
        None => {
            let proofs = api_generate_winning_post(&randomness, &replicas, prover_id(post.miner_id))?;
            // Lotus carries one PoStProof per entry; verifiers concatenate them (Forest does the same).
            proofs.into_iter().flat_map(|(_, bytes)| bytes).collect()
        }
    };
    // A proof that does not verify must never reach a block; checking costs a few milliseconds.
    if !verify_winning_post(post, &proof)? {
        return Err(ProofsError::failure("the winning PoSt just generated does not verify"));
    }
    Ok(proof)
}

pub fn verify_winning_post(post: &PoStInputs<'_>, proof: &[u8]) -> Result<bool> {
    expect_type(post.proof_type, PoStType::Winning)?;
    expect_challenged_count(post)?;
    require(Circuit::of_post(post.proof_type), Need::Verifying)?;
    let replicas = public_replicas(post)?;
    if !proof_bytes::decodes(proof, 1) {
        return Ok(false);
    }
    Ok(api_verify_winning_post(
        &mask_post_randomness(post.randomness),
        proof,
        &replicas,
        prover_id(post.miner_id),
    )?)
}

/// A window PoSt over all `sectors` (the partition's proving set): 192 bytes per partition.
pub fn generate_window_post(root: &Path, post: &PoStInputs<'_>) -> Result<Vec<u8>> {
    expect_type(post.proof_type, PoStType::Window)?;
    require(Circuit::of_post(post.proof_type), Need::Proving)?;
    let replicas = private_replicas(root, post)?;
    let proofs = api_generate_window_post(
        &mask_post_randomness(post.randomness),
        &replicas,
        prover_id(post.miner_id),
    )?;
    Ok(proofs.into_iter().flat_map(|(_, bytes)| bytes).collect())
}

pub fn verify_window_post(post: &PoStInputs<'_>, proof: &[u8]) -> Result<bool> {
    expect_type(post.proof_type, PoStType::Window)?;
    require(Circuit::of_post(post.proof_type), Need::Verifying)?;
    let replicas = public_replicas(post)?;
    let partitions = get_num_partition_for_fallback_post(post.proof_type, replicas.len())?;
    if !proof_bytes::decodes(proof, partitions) {
        return Ok(false);
    }
    Ok(api_verify_window_post(
        &mask_post_randomness(post.randomness),
        &[(post.proof_type, proof)],
        &replicas,
        prover_id(post.miner_id),
    )?)
}

fn expect_type(proof_type: RegisteredPoStProof, expected: PoStType) -> Result<()> {
    if proof_type.typ() == expected {
        return Ok(());
    }
    Err(ProofsError::invalid(format!(
        "{proof_type:?} is not a {} PoSt proof type",
        match expected {
            PoStType::Winning => "winning",
            PoStType::Window => "window",
        }
    )))
}

fn expect_challenged_count(post: &PoStInputs<'_>) -> Result<()> {
    let expected = post.proof_type.sector_count();
    if post.sectors.len() == expected {
        return Ok(());
    }
    Err(ProofsError::invalid(format!(
        "winning PoSt proves the {expected} challenged sector(s), got {}; pick them with the sector challenge",
        post.sectors.len()
    )))
}

/// The sectors keyed by number; a sector listed twice is refused rather than merged.
fn by_sector<T>(
    post: &PoStInputs<'_>,
    mut replica: impl FnMut(&PoStSector) -> Result<T>,
) -> Result<BTreeMap<SectorId, T>> {
    if post.sectors.is_empty() {
        return Err(ProofsError::invalid("a PoSt needs at least one sector"));
    }
    let mut replicas = BTreeMap::new();
    for sector in post.sectors {
        crate::inputs::commitment(&format!("commR of sector {}", sector.sector_number), &sector.comm_r)?;
        let id = SectorId::from(sector.sector_number);
        if replicas.insert(id, replica(sector)?).is_some() {
            return Err(ProofsError::invalid(format!(
                "sector {} is listed twice",
                sector.sector_number
            )));
        }
    }
    Ok(replicas)
}

fn public_replicas(post: &PoStInputs<'_>) -> Result<BTreeMap<SectorId, PublicReplicaInfo>> {
    by_sector(post, |sector| {
        Ok(PublicReplicaInfo::new(post.proof_type, sector.comm_r))
    })
}

fn private_replicas(root: &Path, post: &PoStInputs<'_>) -> Result<BTreeMap<SectorId, PrivateReplicaInfo>> {
    by_sector(post, |sector| {
        let files = SectorFiles::new(root, post.miner_id, sector.sector_number);
        files.require_replica(sector.sector_number)?;
        Ok(PrivateReplicaInfo::new(
            post.proof_type,
            sector.comm_r,
            files.cache,
            files.sealed,
        ))
    })
}
