//! Filecoin storage proofs for ledger-node, over `filecoin-proofs-api` (CPU only): seeded 2 KiB
//! Groth16 parameters, lotus-seed style pre-sealing, full seal and its verification, winning and
//! window PoSt. Pure Rust; `native/` binds it to Node.
//!
//! Every call that reads or writes parameters uses the directories given to
//! [`settings::configure`] (or the defaults, on first use).

pub mod circuits;
pub mod error;
pub mod groth16;
pub mod inputs;
pub mod param_cache;
pub mod piece;
pub mod post;
pub mod preseal;
mod proof_bytes;
pub mod registry;
pub mod seal;
pub mod sector_files;
pub mod settings;
pub mod winning_snark;

pub use circuits::Circuit;
pub use error::{ProofsError, Result};
pub use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof};
