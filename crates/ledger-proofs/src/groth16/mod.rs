//! Our own Groth16 prover for the devnet circuits: the witness bookkeeping of bellperson with the
//! proving key kept in memory and blst's multi-scalar multiplication. The proofs it makes are
//! ordinary bellperson proofs, checked by the library's verifier.

mod assignment;
pub mod batch_affine;
pub mod fft;
pub mod msm;
pub mod prover;
pub mod proving_keys;

pub use prover::{prove, prove_random, ProveError};
pub use proving_keys::proving_key;
