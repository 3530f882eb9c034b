//! BLS as drand uses it for the two beacon schemes Filecoin follows.
//!
//! - chained (`pedersen-bls-chained`): min-pk, the same scheme and DST as Filecoin's own BLS, so
//!   `bls::verify` applies directly; message = sha256(previous signature || round).
//! - unchained (`bls-unchained-g1-rfc9380`, quicknet): min-sig — 48-byte G1 signatures, 96-byte G2
//!   public keys, hashed to G1 with the G1 DST; message = sha256(round). This module does that one.

use blst::min_sig::{PublicKey, SecretKey, Signature};
use blst::BLST_ERROR;

use crate::error::expect_len;
use crate::{CryptoError, Result};

pub const UNCHAINED_DST: &[u8] = b"BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";

fn secret_key(private_key: &[u8]) -> Result<SecretKey> {
    let mut be: [u8; 32] = expect_len("BLS private key", private_key)?;
    be.reverse();
    SecretKey::from_bytes(&be).map_err(|_| CryptoError::InvalidPrivateKey("not a scalar in [1, r-1]"))
}

/// The 96-byte G2 public key of a (little-endian) private key, for an unchained beacon.
pub fn unchained_public_key(private_key: &[u8]) -> Result<[u8; 96]> {
    Ok(secret_key(private_key)?.sk_to_pk().compress())
}

/// A 48-byte G1 signature over `message` with the unchained DST.
pub fn unchained_sign(private_key: &[u8], message: &[u8]) -> Result<[u8; 48]> {
    Ok(secret_key(private_key)?.sign(message, UNCHAINED_DST, &[]).compress())
}

/// Verifies an unchained beacon signature; malformed keys or signatures are invalid.
pub fn unchained_verify(public_key: &[u8], message: &[u8], signature: &[u8]) -> bool {
    let (Ok(pk), Ok(sig)) = (PublicKey::from_bytes(public_key), Signature::from_bytes(signature)) else {
        return false;
    };
    sig.verify(true, message, UNCHAINED_DST, &[], &pk, true) == BLST_ERROR::BLST_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_verify_round_trip() {
        let sk = crate::bls::private_key_from_seed(&[7u8; 32]).unwrap();
        let pk = unchained_public_key(&sk).unwrap();
        let sig = unchained_sign(&sk, b"round").unwrap();
        assert!(unchained_verify(&pk, b"round", &sig));
        assert!(!unchained_verify(&pk, b"rounD", &sig));
        assert!(!unchained_verify(&pk[..95], b"round", &sig));
    }
}
