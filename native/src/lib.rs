//! The only Rust that knows about Node. Thin wrappers over `ledger-crypto` and `ledger-proofs`;
//! errors reach JS with a stable `code` (`ERR_INVALID_LENGTH`, `ERR_INVALID_SIGNATURE`,
//! `ERR_PROOF_PARAMS_MISSING`, ...).
//!
//! Fast calls are synchronous. Anything that can take more than a few milliseconds also has an
//! `…Async` form that runs on the libuv thread pool and returns a Promise. Proof calls are async,
//! except the seal and window PoSt verifications the synchronous VM makes as syscalls.

pub mod crypto;
pub mod error;
pub mod proofs;
pub mod task;
