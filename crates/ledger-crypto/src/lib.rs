//! Filecoin cryptography for ledger-node.
//!
//! Everything here follows what Lotus and ref-fvm do on mainnet, byte for byte:
//! blake2b at the widths Filecoin uses, secp256k1 recoverable signatures over blake2b-256 of the
//! signed bytes (or over a caller's Keccak-256 digest for delegated, Ethereum-style signatures),
//! Keccak-256, and BLS12-381 min-pk signatures with Filecoin's `_NUL_` hash-to-curve DST.

pub mod blake2b;
pub mod bls;
pub mod drand;
mod error;
pub mod keccak;
pub mod secp;

pub use error::{CryptoError, Result};
