//! The small conversions every proof call shares: prover ids, PoSt randomness, 32-byte inputs.

use crate::error::{ProofsError, Result};

/// The prover id of a miner: the payload of its ID address (the unsigned LEB128 varint of the
/// actor id), zero-padded to 32 bytes, as filecoin-ffi `toProverID` builds it.
pub fn prover_id(actor_id: u64) -> [u8; 32] {
    let mut id = [0u8; 32];
    let mut value = actor_id;
    let mut i = 0;
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            id[i] = byte;
            return id;
        }
        id[i] = byte | 0x80;
        i += 1;
    }
}

/// Chain randomness made a valid field element for PoSt, as Lotus and Forest do before calling
/// the proofs library: the top two bits of the last byte are cleared.
pub fn mask_post_randomness(mut randomness: [u8; 32]) -> [u8; 32] {
    randomness[31] &= 0x3f;
    randomness
}

/// A 32-byte input (ticket, seed, randomness), with an error naming it otherwise.
pub fn bytes32(name: &str, bytes: &[u8]) -> Result<[u8; 32]> {
    bytes
        .try_into()
        .map_err(|_| ProofsError::invalid(format!("{name} must be 32 bytes, got {}", bytes.len())))
}

/// A commitment (CommR, CommD): 32 bytes holding a little-endian BLS12-381 scalar.
pub fn commitment(name: &str, bytes: &[u8]) -> Result<[u8; 32]> {
    let bytes = bytes32(name, bytes)?;
    if bool::from(blstrs::Scalar::from_bytes_le(&bytes).is_none()) {
        return Err(ProofsError::invalid(format!(
            "{name} is not a BLS12-381 field element (a commitment's last byte is at most 0x73)"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prover_id_is_the_leb128_actor_id() {
        // t01000 → e8 07, the filecoin-proofs-api test's 3751 → a7 1d.
        assert_eq!(&prover_id(1000)[..3], &[0xe8, 0x07, 0x00]);
        assert_eq!(&prover_id(3751)[..3], &[0xa7, 0x1d, 0x00]);
        assert_eq!(prover_id(0), [0u8; 32]);
        let max = prover_id(u64::MAX);
        assert_eq!(
            &max[..10],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
        assert!(max[10..].iter().all(|&b| b == 0));
    }

    #[test]
    fn masking_clears_the_top_two_bits() {
        let masked = mask_post_randomness([0xff; 32]);
        assert_eq!(masked[31], 0x3f);
        assert!(masked[..31].iter().all(|&b| b == 0xff));
        assert!(commitment("randomness", &masked).is_ok());
    }

    #[test]
    fn commitments_must_be_field_elements() {
        assert!(commitment("commR", &[0u8; 32]).is_ok());
        let err = commitment("commR", &[0xff; 32]).unwrap_err();
        assert_eq!(err.code(), "ERR_INVALID_PROOF_INPUT");
        assert!(commitment("commR", &[0u8; 31])
            .unwrap_err()
            .to_string()
            .contains("32 bytes"));
    }
}
