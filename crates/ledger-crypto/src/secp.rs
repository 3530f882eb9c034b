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
use crate::keccak::keccak256;
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
    sign_digest(private_key, &blake2b_256(data))
}

/// Deterministic (RFC 6979) low-S recoverable signature `r || s || v` (v ∈ {0, 1}) over a
/// caller-given 32-byte digest: Ethereum and delegated (type 3) signatures sign a Keccak-256
/// digest (lotus `lib/sigs/delegated/init.go`).
pub fn sign_digest(private_key: &[u8], digest: &[u8]) -> Result<[u8; 65]> {
    let key = signing_key(private_key)?;
    let digest: [u8; 32] = expect_len("digest", digest)?;
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
    recover_digest(signature, &blake2b_256(data))
}

/// Recovers the uncompressed public key that produced `signature` (`r || s || v`, v ∈ 0..=3) over
/// a caller-given 32-byte digest, with libsecp256k1 as [`recover`] does.
pub fn recover_digest(signature: &[u8], digest: &[u8]) -> Result<[u8; 65]> {
    let signature: [u8; 65] = expect_len("secp256k1 signature", signature)?;
    let digest: [u8; 32] = expect_len("digest", digest)?;
    let recovery_id = RecoveryId::try_from(i32::from(signature[64]))
        .map_err(|_| CryptoError::InvalidSignature("recovery id must be 0..=3"))?;
    let sig = RecoverableSignature::from_compact(&signature[..64], recovery_id)
        .map_err(|_| CryptoError::InvalidSignature("r or s out of range"))?;
    let key = verifier()
        .recover_ecdsa(Message::from_digest(digest), &sig)
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

/// The Ethereum address of an uncompressed public key: the last 20 bytes of Keccak-256 over the
/// 64 bytes after the `0x04` prefix (the payload of its f410 address, FIP-0055).
pub fn eth_address(public_key: &[u8]) -> Result<[u8; 20]> {
    let key: [u8; PUBLIC_KEY_LEN] = expect_len("secp256k1 public key", public_key)?;
    if key[0] != 0x04 {
        return Err(CryptoError::InvalidPublicKey(
            "expected an uncompressed key (0x04 prefix)",
        ));
    }
    let mut out = [0u8; 20];
    out.copy_from_slice(&keccak256(&key[1..])[12..]);
    Ok(out)
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

    /// The example transaction in EIP-155's text (ethereum/EIPs `EIPS/eip-155.md`): private key
    /// 0x4646…46, signing hash daf5a779…, v = 37 (chain 1, recovery id 0), r and s as published.
    const EIP155_KEY: &str = "4646464646464646464646464646464646464646464646464646464646464646";
    const EIP155_SIGNING_HASH: &str = "daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53";
    const EIP155_R: &str = "28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276";
    const EIP155_S: &str = "67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

    fn eip155_signature() -> Vec<u8> {
        let mut sig = hex::decode(format!("{EIP155_R}{EIP155_S}")).unwrap();
        sig.push(0); // v 37 − (2·1 + 35)
        sig
    }

    #[test]
    fn eip155_example_recovers_its_sender() {
        let digest = hex::decode(EIP155_SIGNING_HASH).unwrap();
        let key = recover_digest(&eip155_signature(), &digest).unwrap();
        assert_eq!(key, public_key(&hex::decode(EIP155_KEY).unwrap()).unwrap());
        // The sender every Ethereum library derives from that key.
        assert_eq!(
            hex::encode(eth_address(&key).unwrap()),
            "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f"
        );
    }

    #[test]
    fn eip155_example_signs_identically() {
        // RFC 6979 nonces make the signature deterministic: k256 reproduces go-ethereum's bytes.
        let digest = hex::decode(EIP155_SIGNING_HASH).unwrap();
        let sig = sign_digest(&hex::decode(EIP155_KEY).unwrap(), &digest).unwrap();
        assert_eq!(sig.to_vec(), eip155_signature());
    }

    #[test]
    fn lotus_ecrecover_vector() {
        // lotus `chain/types/ethtypes/eth_1559_transactions_test.go` TestEcRecover: an unsigned
        // 1559 payload, its signature (v = 0) and the public key and address it recovers.
        let payload = hex::decode(
            "02f1030185012a05f2008504a817c800825208942b87d1cb599bc2a606db9a0169fcec96af04ad3a880de0b6b3a764000080c0",
        )
        .unwrap();
        let mut sig = hex::decode(
            "479ff7fa64cf8bf641eb81635d1e8a698530d2f219951d234539e6d0748195294b6146d27be50cdbb2853ba9a42f207af8d730272f1ebe9c9a78aeef1d6aa924",
        )
        .unwrap();
        sig.push(0);
        let key = recover_digest(&sig, &keccak256(&payload)).unwrap();
        assert_eq!(
            hex::encode(key),
            "048362749392a0e192eff600d21155236c5a0648d300a8e0e44d8617712c7c96384c75825dc5c7595df2a5005fd8a0f7c809119fb9ab36403ed712244fc329348e"
        );
        assert_eq!(
            hex::encode(eth_address(&key).unwrap()),
            "3947d223fc5415f43ea099866ab62b1d4d33814d"
        );
    }

    #[test]
    fn digest_forms_match_the_blake2b_forms() {
        let sk = generate_private_key();
        let data = b"filecoin message cid";
        let sig = sign(&sk, data).unwrap();
        assert_eq!(sig, sign_digest(&sk, &blake2b_256(data)).unwrap());
        assert_eq!(
            recover_digest(&sig, &blake2b_256(data)).unwrap(),
            public_key(&sk).unwrap()
        );
    }

    #[test]
    fn digest_forms_reject_bad_lengths() {
        let sk = generate_private_key();
        assert_eq!(sign_digest(&sk, &[0u8; 31]).unwrap_err().code(), "ERR_INVALID_LENGTH");
        let sig = sign_digest(&sk, &[1u8; 32]).unwrap();
        assert_eq!(
            recover_digest(&sig, &[1u8; 33]).unwrap_err().code(),
            "ERR_INVALID_LENGTH"
        );
        assert_eq!(eth_address(&[0u8; 64]).unwrap_err().code(), "ERR_INVALID_LENGTH");
        assert_eq!(eth_address(&[2u8; 65]).unwrap_err().code(), "ERR_INVALID_PUBLIC_KEY");
    }
}
