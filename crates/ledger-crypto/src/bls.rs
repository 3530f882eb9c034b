//! BLS12-381 signatures as Filecoin uses them (bls-signatures / filecoin-ffi, Lotus `lib/sigs/bls`).
//!
//! min-pk: public keys are compressed G1 (48 bytes), signatures compressed G2 (96 bytes), hash to
//! G2 with the `_NUL_` DST. Private keys cross this module's boundary as 32-byte **little-endian**
//! scalars (Filecoin's form); blst itself reads big-endian, so they are reversed here and only here.

use std::collections::HashSet;

use blst::min_pk::{AggregateSignature, PublicKey, SecretKey, Signature};
use blst::{blst_scalar, BLST_ERROR};
use rand_core::{OsRng, RngCore};

use crate::error::expect_len;
use crate::{CryptoError, Result};

pub const DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_";
pub const PRIVATE_KEY_LEN: usize = 32;
pub const PUBLIC_KEY_LEN: usize = 48;
pub const SIGNATURE_LEN: usize = 96;

/// The aggregate of no signatures (the G2 point at infinity), carried by blocks without BLS messages.
pub const IDENTITY_SIGNATURE: [u8; 96] = {
    let mut bytes = [0u8; 96];
    bytes[0] = 0xc0;
    bytes
};

fn secret_key(private_key: &[u8]) -> Result<SecretKey> {
    let mut be: [u8; 32] = expect_len("BLS private key", private_key)?;
    be.reverse();
    SecretKey::from_bytes(&be).map_err(|_| CryptoError::InvalidPrivateKey("not a scalar in [1, r-1]"))
}

fn to_little_endian(key: &SecretKey) -> [u8; 32] {
    let mut le = key.to_bytes();
    le.reverse();
    le
}

/// Derives a key from input keying material with the IETF KeyGen (as bls-signatures does).
pub fn private_key_from_seed(ikm: &[u8]) -> Result<[u8; 32]> {
    if ikm.len() < 32 {
        return Err(CryptoError::InvalidLength {
            what: "BLS key seed",
            expected: 32,
            actual: ikm.len(),
        });
    }
    let key =
        SecretKey::key_gen(ikm, &[]).map_err(|_| CryptoError::InvalidArgument("BLS key generation failed".into()))?;
    Ok(to_little_endian(&key))
}

pub fn generate_private_key() -> [u8; 32] {
    let mut ikm = [0u8; 32];
    OsRng.fill_bytes(&mut ikm);
    private_key_from_seed(&ikm).expect("a 32-byte seed always yields a key")
}

pub fn public_key(private_key: &[u8]) -> Result<[u8; 48]> {
    Ok(secret_key(private_key)?.sk_to_pk().compress())
}

/// Deterministic signature over the raw bytes (no pre-hash: hash-to-curve runs over `message`).
pub fn sign(private_key: &[u8], message: &[u8]) -> Result<[u8; 96]> {
    Ok(secret_key(private_key)?.sign(message, DST, &[]).compress())
}

/// Decompresses without the subgroup check: every verification below asks blst to validate the
/// keys (rejecting the identity and points outside the subgroup), which it does on its worker
/// threads in the multi-key paths.
fn decode_public_key(bytes: &[u8]) -> Option<PublicKey> {
    PublicKey::from_bytes(bytes).ok()
}

fn decode_signature(bytes: &[u8]) -> Option<Signature> {
    Signature::from_bytes(bytes).ok()
}

/// True iff `signature` is a valid signature of `message` under `public_key`. Malformed keys or
/// signatures are simply invalid.
pub fn verify(public_key: &[u8], message: &[u8], signature: &[u8]) -> bool {
    let (Some(pk), Some(sig)) = (decode_public_key(public_key), decode_signature(signature)) else {
        return false;
    };
    sig.verify(true, message, DST, &[], &pk, true) == BLST_ERROR::BLST_SUCCESS
}

/// Sums signatures into one; no signatures give the identity, as Lotus builds empty blocks.
pub fn aggregate(signatures: &[&[u8]]) -> Result<[u8; 96]> {
    if signatures.is_empty() {
        return Ok(IDENTITY_SIGNATURE);
    }
    let decoded = signatures
        .iter()
        .enumerate()
        .map(|(i, bytes)| {
            Signature::sig_validate(bytes, false).map_err(|_| {
                CryptoError::InvalidArgument(format!("signature {i} is not a valid G2 point in the subgroup"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Signature> = decoded.iter().collect();
    let aggregate = AggregateSignature::aggregate(&refs, false)
        .map_err(|_| CryptoError::InvalidArgument("signatures could not be aggregated".into()))?;
    Ok(aggregate.to_signature().compress())
}

/// Verifies an aggregate signature over distinct messages, one public key each.
///
/// Like Filecoin's `verify_messages`, repeated messages are rejected (the rogue-key
/// countermeasure consensus relies on) and an empty set does not verify; consensus code skips the
/// check for blocks without BLS messages.
pub fn aggregate_verify(public_keys: &[&[u8]], messages: &[&[u8]], signature: &[u8]) -> Result<bool> {
    if public_keys.len() != messages.len() {
        return Err(CryptoError::InvalidArgument(format!(
            "{} public keys for {} messages",
            public_keys.len(),
            messages.len()
        )));
    }
    if messages.is_empty() {
        return Ok(false);
    }
    let mut seen = HashSet::with_capacity(messages.len());
    if !messages.iter().all(|m| seen.insert(*m)) {
        return Ok(false);
    }
    let Some(sig) = decode_signature(signature) else {
        return Ok(false);
    };
    let Some(keys) = public_keys
        .iter()
        .map(|k| decode_public_key(k))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(false);
    };
    let key_refs: Vec<&PublicKey> = keys.iter().collect();
    Ok(sig.aggregate_verify(true, messages, DST, &key_refs, true) == BLST_ERROR::BLST_SUCCESS)
}

/// One independent (public key, message, signature) check of a batch.
pub struct SignatureCheck<'a> {
    pub public_key: &'a [u8],
    pub message: &'a [u8],
    pub signature: &'a [u8],
}

/// Verifies many independent signatures at once, returning one verdict per item.
///
/// The fast path is one random-linear-combination check (64-bit random scalars, as blst and
/// Lodestar use); only when it fails are the items checked one by one to find the bad ones.
pub fn verify_batch(checks: &[SignatureCheck<'_>]) -> Vec<bool> {
    if checks.is_empty() {
        return Vec::new();
    }
    let decoded: Vec<Option<(PublicKey, Signature)>> = checks
        .iter()
        .map(|c| Some((decode_public_key(c.public_key)?, decode_signature(c.signature)?)))
        .collect();
    if decoded.iter().all(Option::is_some) {
        let pairs: Vec<&(PublicKey, Signature)> = decoded.iter().flatten().collect();
        let keys: Vec<&PublicKey> = pairs.iter().map(|(k, _)| k).collect();
        let sigs: Vec<&Signature> = pairs.iter().map(|(_, s)| s).collect();
        let messages: Vec<&[u8]> = checks.iter().map(|c| c.message).collect();
        let scalars: Vec<blst_scalar> = (0..checks.len()).map(|_| random_scalar()).collect();
        let verdict =
            Signature::verify_multiple_aggregate_signatures(&messages, DST, &keys, false, &sigs, true, &scalars, 64);
        if verdict == BLST_ERROR::BLST_SUCCESS {
            return vec![true; checks.len()];
        }
    }
    checks
        .iter()
        .zip(&decoded)
        .map(|(check, pair)| match pair {
            Some((key, sig)) => sig.verify(true, check.message, DST, &[], key, true) == BLST_ERROR::BLST_SUCCESS,
            None => false,
        })
        .collect()
}

fn random_scalar() -> blst_scalar {
    let mut scalar = blst_scalar::default();
    let mut random = [0u8; 8];
    // A zero scalar would drop its term from the combination.
    while random == [0u8; 8] {
        OsRng.fill_bytes(&mut random);
    }
    scalar.b[..8].copy_from_slice(&random);
    scalar
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keypair(seed: u8) -> ([u8; 32], [u8; 48]) {
        let sk = private_key_from_seed(&[seed; 32]).unwrap();
        let pk = public_key(&sk).unwrap();
        (sk, pk)
    }

    #[test]
    fn sign_verify() {
        let (sk, pk) = keypair(1);
        let sig = sign(&sk, b"msg").unwrap();
        assert!(verify(&pk, b"msg", &sig));
        assert!(!verify(&pk, b"msh", &sig));
        assert!(!verify(&pk[..47], b"msg", &sig));
        assert!(!verify(&pk, b"msg", &IDENTITY_SIGNATURE));
    }

    #[test]
    fn aggregate_and_verify_distinct_messages() {
        let pairs: Vec<_> = (0..5).map(keypair).collect();
        let msgs: Vec<Vec<u8>> = (0..5).map(|i| vec![i as u8; 4]).collect();
        let sigs: Vec<[u8; 96]> = pairs
            .iter()
            .zip(&msgs)
            .map(|((sk, _), m)| sign(sk, m).unwrap())
            .collect();
        let agg = aggregate(&sigs.iter().map(|s| &s[..]).collect::<Vec<_>>()).unwrap();
        let pks: Vec<&[u8]> = pairs.iter().map(|(_, pk)| &pk[..]).collect();
        let ms: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        assert!(aggregate_verify(&pks, &ms, &agg).unwrap());
        let mut swapped = ms.clone();
        swapped.swap(0, 1);
        assert!(!aggregate_verify(&pks, &swapped, &agg).unwrap());
        assert!(aggregate_verify(&pks[..4], &ms, &agg).is_err());
    }

    #[test]
    fn duplicate_messages_are_rejected() {
        let (sk, pk) = keypair(9);
        let sig = sign(&sk, b"same").unwrap();
        let agg = aggregate(&[&sig, &sig]).unwrap();
        assert!(!aggregate_verify(&[&pk, &pk], &[b"same", b"same"], &agg).unwrap());
    }

    #[test]
    fn empty_aggregate_is_identity() {
        assert_eq!(aggregate(&[]).unwrap(), IDENTITY_SIGNATURE);
        assert!(!aggregate_verify(&[], &[], &IDENTITY_SIGNATURE).unwrap());
    }

    #[test]
    fn batch_finds_the_bad_item() {
        let pairs: Vec<_> = (0..8).map(keypair).collect();
        let msgs: Vec<Vec<u8>> = (0..8).map(|i| vec![i as u8; 3]).collect();
        let mut sigs: Vec<[u8; 96]> = pairs
            .iter()
            .zip(&msgs)
            .map(|((sk, _), m)| sign(sk, m).unwrap())
            .collect();
        let build = |sigs: &Vec<[u8; 96]>| -> Vec<bool> {
            let checks: Vec<SignatureCheck> = (0..8)
                .map(|i| SignatureCheck {
                    public_key: &pairs[i].1,
                    message: &msgs[i],
                    signature: &sigs[i],
                })
                .collect();
            verify_batch(&checks)
        };
        assert_eq!(build(&sigs), vec![true; 8]);
        sigs[3] = sigs[4];
        let verdicts = build(&sigs);
        assert_eq!(verdicts.iter().filter(|v| !**v).count(), 1);
        assert!(!verdicts[3]);
    }

    #[test]
    fn identity_and_off_curve_keys_never_verify() {
        let (sk, _) = keypair(4);
        let sig = sign(&sk, b"m").unwrap();
        let mut identity = [0u8; 48];
        identity[0] = 0xc0;
        assert!(!verify(&identity, b"m", &sig));
        assert!(!aggregate_verify(&[&identity], &[b"m"], &IDENTITY_SIGNATURE).unwrap());
        let checks = [SignatureCheck {
            public_key: &identity,
            message: b"m",
            signature: &IDENTITY_SIGNATURE,
        }];
        assert_eq!(verify_batch(&checks), vec![false]);
    }

    #[test]
    fn private_keys_are_little_endian() {
        let (sk, _) = keypair(3);
        let mut be = sk;
        be.reverse();
        assert_eq!(SecretKey::from_bytes(&be).unwrap().to_bytes(), be);
    }
}
