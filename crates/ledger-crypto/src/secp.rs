//! secp256k1 as Filecoin uses it (Lotus `lib/sigs/secp`, ref-fvm `recover_secp_public_key`).
//!
//! A signature is 65 bytes `r(32) || s(32) || v(1)` over blake2b-256 of the signed bytes (for
//! messages: the binary message CID). Verification recovers the public key; the caller compares
//! its blake2b-160 with the f1 address payload.

use std::sync::OnceLock;

use k256::ecdsa::{SigningKey, VerifyingKey};
use rand_core::OsRng;
use secp256k1::ecdsa::{RecoverableSignature, RecoveryId};
use secp256k1::{Message, Secp256k1, VerifyOnly};

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

/// Recovers the uncompressed public key that produced `signature` over `data`, with
/// libsecp256k1 (the library go-crypto wraps for Lotus): about 2.3× faster than k256 here, and
/// recovery is what every message check costs.
///
/// High-S signatures are accepted, as go-crypto and ref-fvm accept them: recovery never asks for
/// a normalised s (only libsecp256k1's verify does).
pub fn recover(signature: &[u8], data: &[u8]) -> Result<[u8; 65]> {
    let signature: [u8; 65] = expect_len("secp256k1 signature", signature)?;
    let recovery_id = RecoveryId::try_from(i32::from(signature[64]))
        .map_err(|_| CryptoError::InvalidSignature("recovery id must be 0..=3"))?;
    let sig = RecoverableSignature::from_compact(&signature[..64], recovery_id)
        .map_err(|_| CryptoError::InvalidSignature("r or s out of range"))?;
    let digest = Message::from_digest(blake2b_256(data));
    let key = verifier()
        .recover_ecdsa(digest, &sig)
        .map_err(|_| CryptoError::InvalidSignature("no public key recovers from it"))?;
    Ok(key.serialize_uncompressed())
}

/// libsecp256k1's context for recovery (made once: it holds no secret and never changes).
fn verifier() -> &'static Secp256k1<VerifyOnly> {
    static CONTEXT: OnceLock<Secp256k1<VerifyOnly>> = OnceLock::new();
    CONTEXT.get_or_init(Secp256k1::verification_only)
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
    fn recovery_agrees_with_k256() {
        for i in 0u8..50 {
            let sk = generate_private_key();
            let data = [i; 40];
            let sig = sign(&sk, &data).unwrap();
            let parsed = k256::ecdsa::Signature::from_slice(&sig[..64]).unwrap();
            let id = k256::ecdsa::RecoveryId::from_byte(sig[64]).unwrap();
            let theirs = VerifyingKey::recover_from_prehash(&blake2b_256(&data), &parsed, id).unwrap();
            assert_eq!(recover(&sig, &data).unwrap(), uncompressed(&theirs));
            assert_eq!(recover(&sig, &data).unwrap(), public_key(&sk).unwrap());
        }
    }

    #[test]
    fn rejects_bad_inputs() {
        assert_eq!(public_key(&[0u8; 31]).unwrap_err().code(), "ERR_INVALID_LENGTH");
        assert_eq!(public_key(&[0u8; 32]).unwrap_err().code(), "ERR_INVALID_PRIVATE_KEY");
        let mut sig = sign(&generate_private_key(), b"x").unwrap();
        sig[64] = 7;
        assert_eq!(recover(&sig, b"x").unwrap_err().code(), "ERR_INVALID_SIGNATURE");
        sig[64] = 0;
        // r = 0, s = 0 and r ≥ n are no signatures.
        let mut zero_r = sig;
        zero_r[..32].fill(0);
        assert!(recover(&zero_r, b"x").is_err());
        let mut zero_s = sig;
        zero_s[32..64].fill(0);
        assert!(recover(&zero_s, b"x").is_err());
        let mut big_r = sig;
        big_r[..32].fill(0xff);
        assert!(recover(&big_r, b"x").is_err());
        assert_eq!(recover(&sig[..64], b"x").unwrap_err().code(), "ERR_INVALID_LENGTH");
    }
}
