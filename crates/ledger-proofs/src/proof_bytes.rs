use bellperson::groth16::Proof;
use blstrs::Bls12;

/// Groth16 proofs are 192 bytes each (compressed A, B, C), one per partition.
pub const GROTH_PROOF_BYTES: usize = 192;

/// True when `bytes` are exactly `partitions` Groth16 proofs whose points decode. Anything else
/// is simply not a valid proof: verification answers false instead of failing.
pub fn decodes(bytes: &[u8], partitions: usize) -> bool {
    bytes.len() == partitions * GROTH_PROOF_BYTES && Proof::<Bls12>::read_many(bytes, partitions).is_ok()
}
