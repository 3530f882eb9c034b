//! blake2b at the digest widths Filecoin uses: 32 bytes (CIDs, signing digests, randomness),
//! 20 bytes (f1/f2 address payloads) and 4 bytes (address checksums).

use crate::{CryptoError, Result};

/// blake2b with an arbitrary digest length (1..=64 bytes), unkeyed.
pub fn blake2b(data: &[u8], out_len: usize) -> Result<Vec<u8>> {
    if out_len == 0 || out_len > 64 {
        return Err(CryptoError::InvalidArgument(format!(
            "blake2b digest length must be 1..=64 bytes, got {out_len}"
        )));
    }
    Ok(blake2b_simd::Params::new()
        .hash_length(out_len)
        .hash(data)
        .as_bytes()
        .to_vec())
}

pub fn blake2b_256(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(blake2b_simd::Params::new().hash_length(32).hash(data).as_bytes());
    out
}

pub fn blake2b_160(data: &[u8]) -> [u8; 20] {
    let mut out = [0u8; 20];
    out.copy_from_slice(blake2b_simd::Params::new().hash_length(20).hash(data).as_bytes());
    out
}

pub fn blake2b_32(data: &[u8]) -> [u8; 4] {
    let mut out = [0u8; 4];
    out.copy_from_slice(blake2b_simd::Params::new().hash_length(4).hash(data).as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_widths() {
        assert!(blake2b(b"", 0).is_err());
        assert!(blake2b(b"", 65).is_err());
        assert_eq!(blake2b(b"abc", 64).unwrap().len(), 64);
    }

    #[test]
    fn fixed_widths_match_generic() {
        let data = b"ledger";
        assert_eq!(blake2b(data, 32).unwrap(), blake2b_256(data));
        assert_eq!(blake2b(data, 20).unwrap(), blake2b_160(data));
        assert_eq!(blake2b(data, 4).unwrap(), blake2b_32(data));
    }

    #[test]
    fn rfc7693_abc_512() {
        // RFC 7693 appendix A: BLAKE2b-512("abc").
        let expected = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
                        7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";
        assert_eq!(hex::encode(blake2b(b"abc", 64).unwrap()), expected);
    }
}
