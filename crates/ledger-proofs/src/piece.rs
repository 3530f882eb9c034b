//! The data pre-sealed sectors hold. lotus-seed fills them with random bytes; ours are a ChaCha20
//! stream seeded from a documented constant, the miner and the sector number, so the same
//! pre-seal gives the same CommD and CommR on every machine.

use std::io::Read;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Domain of the piece seed: blake2b-256(this ‖ miner id LE64 ‖ sector number LE64).
pub const PRESEAL_PIECE_DOMAIN: &[u8] = b"ledger-node/preseal-piece";

/// `length` bytes of deterministic piece data for one pre-sealed sector.
pub fn preseal_piece(miner_id: u64, sector_number: u64, length: u64) -> impl Read {
    let mut seed_input = PRESEAL_PIECE_DOMAIN.to_vec();
    seed_input.extend_from_slice(&miner_id.to_le_bytes());
    seed_input.extend_from_slice(&sector_number.to_le_bytes());
    let seed: [u8; 32] = blake2b_simd::Params::new()
        .hash_length(32)
        .hash(&seed_input)
        .as_bytes()
        .try_into()
        .expect("32-byte digest");
    RngReader(ChaCha20Rng::from_seed(seed)).take(length)
}

struct RngReader(ChaCha20Rng);

impl Read for RngReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.fill_bytes(buf);
        Ok(buf.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(miner: u64, sector: u64) -> Vec<u8> {
        let mut out = Vec::new();
        preseal_piece(miner, sector, 2032).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn pieces_are_deterministic_and_distinct() {
        assert_eq!(bytes(1000, 0).len(), 2032);
        assert_eq!(bytes(1000, 0), bytes(1000, 0));
        assert_ne!(bytes(1000, 0), bytes(1000, 1));
        assert_ne!(bytes(1000, 0), bytes(1001, 0));
    }
}
