//! Winning PoSt over 2 KiB sectors with our prover (`groth16`): the library makes the vanilla
//! proofs (Merkle paths read from the sector cache) and the circuit, we make the SNARK.

use std::collections::BTreeMap;
use std::path::Path;

use bellperson::groth16::Parameters;
use blstrs::Bls12;
use filecoin_proofs::parameters::winning_post_setup_params;
use filecoin_proofs::{
    as_safe_commitment, generate_fallback_sector_challenges, generate_single_vanilla_proof, partition_vanilla_proofs,
    PrivateReplicaInfo as ReplicaFiles, SectorShape2KiB,
};
use filecoin_proofs_api::{RegisteredPoStProof, SectorId};
use rand_core::OsRng;
use storage_proofs_core::compound_proof::{self, CompoundProof};
use storage_proofs_post::fallback::{self, FallbackPoStCompound, PublicSector};

use crate::error::{ProofsError, Result};
use crate::groth16::prove_random;
use crate::post::PoStSector;
use crate::sector_files::SectorFiles;

type Tree = SectorShape2KiB;

/// Where the challenged sectors are and what the chain says they commit to.
pub struct ChallengedSectors<'a> {
    pub root: &'a Path,
    pub miner_id: u64,
    /// Checked by the caller: present, distinct and in order of sector number.
    pub sectors: &'a [PoStSector],
}

/// The 192-byte proof over the challenged sectors; `randomness` is already masked.
pub fn generate(
    proof_type: RegisteredPoStProof,
    randomness: &[u8; 32],
    prover_id: [u8; 32],
    challenged: &ChallengedSectors<'_>,
    key: &Parameters<Bls12>,
) -> Result<Vec<u8>> {
    let config = proof_type.as_v1_config();
    let mut replicas = BTreeMap::new();
    for sector in challenged.sectors {
        let files = SectorFiles::new(challenged.root, challenged.miner_id, sector.sector_number);
        let replica = ReplicaFiles::<Tree>::new(files.sealed, sector.comm_r, files.cache)?;
        replicas.insert(SectorId::from(sector.sector_number), replica);
    }
    let ids: Vec<SectorId> = replicas.keys().copied().collect();
    let challenges = generate_fallback_sector_challenges::<Tree>(&config, randomness, &ids, prover_id)?;
    let mut vanilla = Vec::with_capacity(replicas.len());
    for (id, replica) in &replicas {
        vanilla.push(generate_single_vanilla_proof::<Tree>(
            &config,
            *id,
            replica,
            &challenges[id],
        )?);
    }

    let setup = compound_proof::SetupParams {
        vanilla_params: winning_post_setup_params(&config)?,
        partitions: None,
        priority: false,
    };
    let public_params = FallbackPoStCompound::<Tree>::setup(&setup)?;
    let public_inputs = fallback::PublicInputs {
        randomness: as_safe_commitment(randomness, "randomness")?,
        prover_id: as_safe_commitment(&prover_id, "prover_id")?,
        sectors: vanilla
            .iter()
            .map(|proof| PublicSector {
                id: proof.sector_id,
                comm_r: proof.comm_r,
            })
            .collect(),
        k: None,
    };
    let partitions = public_params.partitions.unwrap_or(1);
    let partitioned = partition_vanilla_proofs(
        &config,
        &public_params.vanilla_params,
        &public_inputs,
        partitions,
        &vanilla,
    )?;
    let [partition] = &partitioned[..] else {
        return Err(ProofsError::failure(format!(
            "winning PoSt has one partition, the library made {}",
            partitioned.len()
        )));
    };
    let circuit = FallbackPoStCompound::<Tree>::circuit(
        &public_inputs,
        Default::default(),
        partition,
        &public_params.vanilla_params,
        Some(0),
    )?;
    let proof = prove_random(circuit, key, &mut OsRng).map_err(|e| ProofsError::failure(e.to_string()))?;
    let mut bytes = Vec::with_capacity(192);
    proof
        .write(&mut bytes)
        .map_err(|e| ProofsError::io("encoding the winning PoSt proof", e))?;
    Ok(bytes)
}
