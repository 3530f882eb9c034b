//! secp256k1 as Filecoin uses it (Lotus `lib/sigs/secp`, ref-fvm `recover_secp_public_key`).
//!
//! A signature is 65 bytes `r(32) || s(32) || v(1)` over blake2b-256 of the signed bytes (for
//! messages: the binary message CID). Verification recovers the public key; the caller compares
//! its blake2b-160 with the f1 address payload.

use k256::ecdsa::{RecoveryId, Signature, SigningKey, VerifyingKey};
use k256::elliptic_curve::ops::{LinearCombination, Reduce};
use k256::elliptic_curve::point::DecompressPoint;
use k256::elliptic_curve::subtle::Choice;
use k256::{AffinePoint, ProjectivePoint, Scalar, U256};
use rand_core::OsRng;

use crate::blake2b::{blake2b_160, blake2b_256};
use crate::error::expect_len;
use crate::{CryptoError, Result};

pub const PRIVATE_KEY_LEN: usize = 32;
pub const PUBLIC_KEY_LEN: usize = 65;
pub const SIGNATURE_LEN: usize = 65;

pub fn generate_private_key() -> [u8; 32] {
    SigningKey::random(&mut OsRng).to_bytes().into()
}

fn signing_key(private_key: &[u8]) -> Result<SigningKey> {
    let bytes: [u8; 32] = expect_len("secp256k1 private key", private_key)?;
    SigningKey::from_bytes(&bytes.into()).map_err(|_| CryptoError::InvalidPrivateKey("not a scalar in [1, n-1]"))
}

/// The 65-byte uncompressed public key `04 || X || Y`, the form f1 addresses hash.
pub fn public_key(private_key: &[u8]) -> Result<[u8; 65]> {
    let key = signing_key(private_key)?;
    Ok(uncompressed(key.verifying_key()))
}

fn uncompressed(key: &VerifyingKey) -> [u8; 65] {
    let point = key.to_encoded_point(false);
    let mut out = [0u8; 65];
    out.copy_from_slice(point.as_bytes());
    out
}

/// Deterministic (RFC 6979) low-S recoverable signature over blake2b-256(data).
pub fn sign(private_key: &[u8], data: &[u8]) -> Result<[u8; 65]> {
    let key = signing_key(private_key)?;
    let digest = blake2b_256(data);
    let (signature, recovery_id) = key
        .sign_prehash_recoverable(&digest)
        .map_err(|_| CryptoError::InvalidPrivateKey("signing failed"))?;
    let mut out = [0u8; 65];
    out[..64].copy_from_slice(&signature.to_bytes());
    out[64] = recovery_id.to_byte();
    Ok(out)
}

/// Recovers the uncompressed public key that produced `signature` over `data`.
///
/// High-S signatures are accepted, as go-crypto and ref-fvm accept them: s is normalised and
/// the recovery id's parity flipped before recovery.
pub fn recover(signature: &[u8], data: &[u8]) -> Result<[u8; 65]> {
    let signature: [u8; 65] = expect_len("secp256k1 signature", signature)?;
    let mut recovery_id =
        RecoveryId::from_byte(signature[64]).ok_or(CryptoError::InvalidSignature("recovery id must be 0..=3"))?;
    let mut sig =
        Signature::from_slice(&signature[..64]).map_err(|_| CryptoError::InvalidSignature("r or s out of range"))?;
    if let Some(low_s) = sig.normalize_s() {
        sig = low_s;
        recovery_id = RecoveryId::new(!recovery_id.is_y_odd(), recovery_id.is_x_reduced());
    }
    let digest = blake2b_256(data);
    let key = recover_from_digest(&digest, &sig, recovery_id)
        .ok_or(CryptoError::InvalidSignature("no public key recovers from it"))?;
    Ok(uncompressed(&key))
}

/// SEC 1 §4.1.6 public key recovery: Q = r⁻¹(sR − zG).
///
/// k256's `recover_from_prehash` verifies the signature again under the recovered key, which
/// doubles the cost for nothing: Q is built so that (r, s) verifies under it (as in libsecp256k1,
/// which go-crypto wraps). Ids 2 and 3 (x = r + n, probability ~2⁻¹²⁸) take the library path.
fn recover_from_digest(digest: &[u8; 32], sig: &Signature, recovery_id: RecoveryId) -> Option<VerifyingKey> {
    if recovery_id.is_x_reduced() {
        return VerifyingKey::recover_from_prehash(digest, sig, recovery_id).ok();
    }
    let (r, s) = sig.split_scalars();
    let z = <Scalar as Reduce<U256>>::reduce_bytes(digest.into());
    let big_r = AffinePoint::decompress(&r.to_bytes(), Choice::from(u8::from(recovery_id.is_y_odd())));
    let big_r = ProjectivePoint::from(Option::<AffinePoint>::from(big_r)?);
    let r_inv = Option::<Scalar>::from(r.invert())?;
    let q = ProjectivePoint::lincomb(&ProjectivePoint::GENERATOR, &-(r_inv * z), &big_r, &(r_inv * *s));
    // Rejects the point at infinity.
    VerifyingKey::from_affine(q.to_affine()).ok()
}

/// True when `signature` over `data` recovers a key whose blake2b-160 is `address_payload`
/// (the 20 bytes after the protocol byte of an f1 address). Malformed signatures are false.
pub fn verify(signature: &[u8], data: &[u8], address_payload: &[u8]) -> bool {
    match recover(signature, data) {
        Ok(key) => blake2b_160(&key) == address_payload,
        Err(_) => false,
    }
}

/// The f1 address payload of an uncompressed public key.
pub fn address_payload(public_key: &[u8]) -> Result<[u8; 20]> {
    let key: [u8; PUBLIC_KEY_LEN] = expect_len("secp256k1 public key", public_key)?;
    if key[0] != 0x04 {
        return Err(CryptoError::InvalidPublicKey(
            "expected an uncompressed key (0x04 prefix)",
        ));
    }
    Ok(blake2b_160(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_recover_round_trip() {
        let sk = generate_private_key();
        let pk = public_key(&sk).unwrap();
        let sig = sign(&sk, b"hello").unwrap();
        assert!(sig[64] <= 1);
        assert_eq!(recover(&sig, b"hello").unwrap(), pk);
        let payload = address_payload(&pk).unwrap();
        assert!(verify(&sig, b"hello", &payload));
        assert!(!verify(&sig, b"hellO", &payload));
    }

    #[test]
    fn high_s_is_normalised_like_go_crypto() {
        let sk = generate_private_key();
        let pk = public_key(&sk).unwrap();
        let sig = sign(&sk, b"data").unwrap();
        // s' = n - s with the parity bit flipped is the same signature in high-S form.
        let n = hex::decode("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141").unwrap();
        let mut s = [0u8; 32];
        let mut borrow = 0i16;
        for i in (0..32).rev() {
            let v = n[i] as i16 - sig[32 + i] as i16 - borrow;
            borrow = if v < 0 { 1 } else { 0 };
            s[i] = (v + 256 * borrow) as u8;
        }
        let mut high = sig;
        high[32..64].copy_from_slice(&s);
        high[64] ^= 1;
        assert_eq!(recover(&high, b"data").unwrap(), pk);
    }

    #[test]
    fn recovery_matches_the_verifying_library_path() {
        for i in 0u8..50 {
            let sk = generate_private_key();
            let data = [i; 40];
            let sig = sign(&sk, &data).unwrap();
            let parsed = Signature::from_slice(&sig[..64]).unwrap();
            let id = RecoveryId::from_byte(sig[64]).unwrap();
            let digest = blake2b_256(&data);
            let ours = recover_from_digest(&digest, &parsed, id).unwrap();
            assert_eq!(ours, VerifyingKey::recover_from_prehash(&digest, &parsed, id).unwrap());
            assert_eq!(uncompressed(&ours), public_key(&sk).unwrap());
        }
    }

    #[test]
    fn rejects_bad_inputs() {
        assert_eq!(public_key(&[0u8; 31]).unwrap_err().code(), "ERR_INVALID_LENGTH");
        assert_eq!(public_key(&[0u8; 32]).unwrap_err().code(), "ERR_INVALID_PRIVATE_KEY");
        let mut sig = sign(&generate_private_key(), b"x").unwrap();
        sig[64] = 7;
        assert_eq!(recover(&sig, b"x").unwrap_err().code(), "ERR_INVALID_SIGNATURE");
    }
}
