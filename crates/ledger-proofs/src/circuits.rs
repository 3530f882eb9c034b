//! The three 2 KiB circuits a devnet needs, the file names the proofs library looks them up by,
//! and their Groth16 setup.

use std::sync::OnceLock;

use bellperson::groth16;
use blstrs::Bls12;
use filecoin_proofs::parameters::{public_params, window_post_public_params, winning_post_public_params};
use filecoin_proofs::{DefaultPieceHasher, SectorShape2KiB};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
use rand_core::RngCore;
use storage_proofs_core::compound_proof::CompoundProof;
use storage_proofs_core::parameter_cache::{parameter_id, verifying_key_id};
use storage_proofs_porep::stacked::{StackedCircuit, StackedCompound, StackedDrg};
use storage_proofs_post::fallback::{FallbackPoSt, FallbackPoStCircuit, FallbackPoStCompound};

use crate::error::{ProofsError, Result};

type Tree = SectorShape2KiB;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Circuit {
    /// Winning PoSt over 2 KiB sectors (66 challenges in one sector): 45 MiB of parameters.
    WinningPost,
    /// Window PoSt over 2 KiB sectors (2 sectors × 10 challenges per partition): 11 MiB.
    WindowPost,
    /// StackedDrg 2 KiB PoRep (seal commit phase 2 and seal verification): 1 GiB.
    Porep,
}

impl Circuit {
    pub const ALL: [Circuit; 3] = [Circuit::WinningPost, Circuit::WindowPost, Circuit::Porep];

    /// A short stable name (`winning-post`, `window-post`, `porep`).
    pub fn name(self) -> &'static str {
        match self {
            Circuit::WinningPost => "winning-post",
            Circuit::WindowPost => "window-post",
            Circuit::Porep => "porep",
        }
    }

    pub fn parse(name: &str) -> Result<Circuit> {
        Circuit::ALL.into_iter().find(|c| c.name() == name).ok_or_else(|| {
            ProofsError::invalid(format!("unknown circuit {name:?} (winning-post, window-post or porep)"))
        })
    }

    /// The circuit a registered PoSt proof runs on, when it is one this crate can set up.
    pub fn of_post(proof: RegisteredPoStProof) -> Option<Circuit> {
        match proof {
            RegisteredPoStProof::StackedDrgWinning2KiBV1 => Some(Circuit::WinningPost),
            // V1 and V1_2 differ in the vanilla proof only; they share the circuit and its files.
            RegisteredPoStProof::StackedDrgWindow2KiBV1 | RegisteredPoStProof::StackedDrgWindow2KiBV1_2 => {
                Some(Circuit::WindowPost)
            }
            _ => None,
        }
    }

    /// The circuit a registered seal proof commits with, when it is one this crate can set up.
    pub fn of_seal(proof: RegisteredSealProof) -> Option<Circuit> {
        match proof {
            // The porep id is left out of the circuit id, so V1 and V1_1 share the files.
            RegisteredSealProof::StackedDrg2KiBV1 | RegisteredSealProof::StackedDrg2KiBV1_1 => Some(Circuit::Porep),
            _ => None,
        }
    }

    /// The flag of `ledger proofs params` that creates this circuit's files.
    pub fn cli_flag(self) -> &'static str {
        match self {
            Circuit::Porep => " --porep",
            Circuit::WinningPost | Circuit::WindowPost => "",
        }
    }

    /// `v28-<cache prefix>-<sha256 of the public parameters>.params`, exactly as the library looks it up.
    pub fn params_file_name(self) -> String {
        parameter_id(self.cache_id())
    }

    pub fn vk_file_name(self) -> String {
        verifying_key_id(self.cache_id())
    }

    /// Computed once: every proof call checks its files by name, and the identifier comes from
    /// setting up the public parameters.
    fn cache_id(self) -> &'static str {
        static IDS: OnceLock<[String; 3]> = OnceLock::new();
        let ids = IDS.get_or_init(|| {
            Circuit::ALL.map(|circuit| {
                match circuit {
                    Circuit::WinningPost => RegisteredPoStProof::StackedDrgWinning2KiBV1.circuit_identifier(),
                    Circuit::WindowPost => RegisteredPoStProof::StackedDrgWindow2KiBV1_2.circuit_identifier(),
                    Circuit::Porep => RegisteredSealProof::StackedDrg2KiBV1_1.circuit_identifier(),
                }
                .expect("2 KiB public parameters always set up")
            })
        });
        let index = Circuit::ALL
            .iter()
            .position(|c| *c == self)
            .expect("every circuit is in ALL");
        &ids[index]
    }

    /// Groth16 setup of the circuit. All randomness (the toxic waste) is drawn from `rng` before
    /// anything else, so a seeded `rng` gives the same parameters on every machine.
    pub(crate) fn setup(self, rng: &mut impl RngCore) -> Result<groth16::Parameters<Bls12>> {
        let parameters = match self {
            Circuit::WinningPost | Circuit::WindowPost => {
                let proof = match self {
                    Circuit::WinningPost => RegisteredPoStProof::StackedDrgWinning2KiBV1,
                    _ => RegisteredPoStProof::StackedDrgWindow2KiBV1_2,
                };
                let config = proof.as_v1_config();
                let public = match self {
                    Circuit::WinningPost => winning_post_public_params::<Tree>(&config)?,
                    _ => window_post_public_params::<Tree>(&config)?,
                };
                let circuit = <FallbackPoStCompound<Tree> as CompoundProof<
                    FallbackPoSt<'_, Tree>,
                    FallbackPoStCircuit<Tree>,
                >>::blank_circuit(&public);
                groth16::generate_random_parameters::<Bls12, _, _>(circuit, rng)
            }
            Circuit::Porep => {
                let config = RegisteredSealProof::StackedDrg2KiBV1_1.as_v1_config();
                let public = public_params::<Tree>(&config)?;
                let circuit = <StackedCompound<Tree, DefaultPieceHasher> as CompoundProof<
                    StackedDrg<'_, Tree, DefaultPieceHasher>,
                    StackedCircuit<Tree, DefaultPieceHasher>,
                >>::blank_circuit(&public);
                groth16::generate_random_parameters::<Bls12, _, _>(circuit, rng)
            }
        };
        parameters.map_err(|e| ProofsError::Failed(anyhow::anyhow!("Groth16 setup of {}: {e}", self.name())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names rust-fil-proofs' parameters.json lists for 2 KiB (and the proofs-native reference).
    #[test]
    fn file_names_match_the_published_circuits() {
        assert_eq!(
            Circuit::Porep.params_file_name(),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"
        );
        assert_eq!(
            Circuit::WinningPost.vk_file_name(),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk"
        );
        assert_eq!(
            Circuit::WindowPost.params_file_name(),
            "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params"
        );
    }

    #[test]
    fn registered_proofs_map_to_circuits() {
        assert_eq!(
            Circuit::of_post(RegisteredPoStProof::StackedDrgWindow2KiBV1),
            Some(Circuit::WindowPost)
        );
        assert_eq!(
            Circuit::of_seal(RegisteredSealProof::StackedDrg2KiBV1),
            Some(Circuit::Porep)
        );
        assert_eq!(Circuit::of_post(RegisteredPoStProof::StackedDrgWinning32GiBV1), None);
        assert_eq!(Circuit::parse("porep").unwrap(), Circuit::Porep);
        assert!(Circuit::parse("snap").is_err());
    }
}
