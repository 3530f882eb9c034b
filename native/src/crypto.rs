use ledger_crypto::{blake2b, bls, keccak, secp};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{from_crypto, invalid_argument, Result};

// ---- blake2b ----------------------------------------------------------------------------------

/// blake2b with a digest of `length` bytes (1..=64).
#[napi(js_name = "blake2b")]
pub fn blake2b(data: &[u8], length: u32) -> Result<Buffer> {
    blake2b::blake2b(data, length as usize)
        .map(Buffer::from)
        .map_err(from_crypto)
}

#[napi(js_name = "blake2b256")]
pub fn blake2b256(data: &[u8]) -> Buffer {
    blake2b::blake2b_256(data).to_vec().into()
}

// ---- keccak ----------------------------------------------------------------------------------

/// Keccak-256 (Ethereum's, not SHA3-256).
#[napi(js_name = "keccak256")]
pub fn keccak256(data: &[u8]) -> Buffer {
    keccak::keccak256(data).to_vec().into()
}

// ---- secp256k1 --------------------------------------------------------------------------------

#[napi(js_name = "secp256k1GeneratePrivateKey")]
pub fn secp256k1_generate_private_key() -> Buffer {
    secp::generate_private_key().to_vec().into()
}

/// 65-byte uncompressed public key.
#[napi(js_name = "secp256k1PublicKey")]
pub fn secp256k1_public_key(private_key: &[u8]) -> Result<Buffer> {
    secp::public_key(private_key)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// 65-byte `r || s || v` signature over blake2b-256(data).
#[napi(js_name = "secp256k1Sign")]
pub fn secp256k1_sign(private_key: &[u8], data: &[u8]) -> Result<Buffer> {
    secp::sign(private_key, data)
        .map(|s| s.to_vec().into())
        .map_err(from_crypto)
}

/// Recovers the 65-byte uncompressed public key; throws `ERR_INVALID_SIGNATURE` when none recovers.
#[napi(js_name = "secp256k1Recover")]
pub fn secp256k1_recover(signature: &[u8], data: &[u8]) -> Result<Buffer> {
    secp::recover(signature, data)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// 65-byte `r || s || v` signature (v ∈ {0, 1}) over a caller-given 32-byte digest.
#[napi(js_name = "secp256k1SignDigest")]
pub fn secp256k1_sign_digest(private_key: &[u8], digest: &[u8]) -> Result<Buffer> {
    secp::sign_digest(private_key, digest)
        .map(|s| s.to_vec().into())
        .map_err(from_crypto)
}

/// Recovers the 65-byte uncompressed public key from a signature over a 32-byte digest.
#[napi(js_name = "secp256k1RecoverDigest")]
pub fn secp256k1_recover_digest(signature: &[u8], digest: &[u8]) -> Result<Buffer> {
    secp::recover_digest(signature, digest)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// True when the signature recovers the key of the f1 address whose payload is given.
#[napi(js_name = "secp256k1Verify")]
pub fn secp256k1_verify(signature: &[u8], data: &[u8], address_payload: &[u8]) -> bool {
    secp::verify(signature, data, address_payload)
}

/// What a batch recovers over: the signed bytes (hashed with blake2b-256) or a given digest.
#[derive(Clone, Copy)]
enum Signed {
    Data,
    Digest,
}

pub struct SecpRecoverBatch {
    signed: Signed,
    items: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Task for SecpRecoverBatch {
    type Output = Vec<Option<Vec<u8>>>;
    type JsValue = Vec<Option<Buffer>>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let recover = match self.signed {
            Signed::Data => secp::recover,
            Signed::Digest => secp::recover_digest,
        };
        Ok(self
            .items
            .iter()
            .map(|(sig, signed)| recover(sig, signed).ok().map(|k| k.to_vec()))
            .collect())
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(output.into_iter().map(|k| k.map(Buffer::from)).collect())
    }
}

fn recover_batch(
    signed: Signed,
    signatures: Vec<Uint8Array>,
    messages: Vec<Uint8Array>,
) -> Result<AsyncTask<SecpRecoverBatch>> {
    if signatures.len() != messages.len() {
        return Err(invalid_argument(format!(
            "{} signatures for {} messages",
            signatures.len(),
            messages.len()
        )));
    }
    let items = signatures
        .iter()
        .zip(&messages)
        .map(|(s, m)| (s.to_vec(), m.to_vec()))
        .collect();
    Ok(AsyncTask::new(SecpRecoverBatch { signed, items }))
}

/// Recovers many public keys off the main thread; `null` where a signature recovers nothing.
#[napi(
    js_name = "secp256k1RecoverBatchAsync",
    ts_return_type = "Promise<Array<Buffer | null>>"
)]
pub fn secp256k1_recover_batch_async(
    signatures: Vec<Uint8Array>,
    data: Vec<Uint8Array>,
) -> Result<AsyncTask<SecpRecoverBatch>> {
    recover_batch(Signed::Data, signatures, data)
}

/// As `secp256k1RecoverBatchAsync`, over 32-byte digests (delegated signatures sign a Keccak-256
/// digest); `null` where a signature or digest recovers nothing.
#[napi(
    js_name = "secp256k1RecoverDigestBatchAsync",
    ts_return_type = "Promise<Array<Buffer | null>>"
)]
pub fn secp256k1_recover_digest_batch_async(
    signatures: Vec<Uint8Array>,
    digests: Vec<Uint8Array>,
) -> Result<AsyncTask<SecpRecoverBatch>> {
    recover_batch(Signed::Digest, signatures, digests)
}

// ---- BLS --------------------------------------------------------------------------------------

/// A random 32-byte little-endian private key.
#[napi]
pub fn bls_generate_private_key() -> Buffer {
    bls::generate_private_key().to_vec().into()
}

/// IETF KeyGen over `seed` (≥ 32 bytes), little-endian like Filecoin.
#[napi]
pub fn bls_private_key_from_seed(seed: &[u8]) -> Result<Buffer> {
    bls::private_key_from_seed(seed)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// 48-byte compressed G1 public key of a little-endian private key.
#[napi]
pub fn bls_public_key(private_key: &[u8]) -> Result<Buffer> {
    bls::public_key(private_key)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// 96-byte compressed G2 signature over the raw message bytes.
#[napi]
pub fn bls_sign(private_key: &[u8], message: &[u8]) -> Result<Buffer> {
    bls::sign(private_key, message)
        .map(|s| s.to_vec().into())
        .map_err(from_crypto)
}

#[napi]
pub fn bls_verify(public_key: &[u8], message: &[u8], signature: &[u8]) -> bool {
    bls::verify(public_key, message, signature)
}

/// Aggregate of the signatures; the identity (`c0` then zeros) for none.
#[napi]
pub fn bls_aggregate(signatures: Vec<Uint8Array>) -> Result<Buffer> {
    let refs: Vec<&[u8]> = signatures.iter().map(|s| &s[..]).collect();
    bls::aggregate(&refs).map(|s| s.to_vec().into()).map_err(from_crypto)
}

/// Aggregate verification over distinct messages (duplicates are rejected, as consensus requires).
#[napi]
pub fn bls_aggregate_verify(public_keys: Vec<Uint8Array>, messages: Vec<Uint8Array>, signature: &[u8]) -> Result<bool> {
    let keys: Vec<&[u8]> = public_keys.iter().map(|k| &k[..]).collect();
    let msgs: Vec<&[u8]> = messages.iter().map(|m| &m[..]).collect();
    bls::aggregate_verify(&keys, &msgs, signature).map_err(from_crypto)
}

pub struct BlsAggregateVerify {
    public_keys: Vec<Vec<u8>>,
    messages: Vec<Vec<u8>>,
    signature: Vec<u8>,
}

impl Task for BlsAggregateVerify {
    type Output = bool;
    type JsValue = bool;

    fn compute(&mut self) -> napi::Result<bool> {
        let keys: Vec<&[u8]> = self.public_keys.iter().map(Vec::as_slice).collect();
        let msgs: Vec<&[u8]> = self.messages.iter().map(Vec::as_slice).collect();
        // Lengths were checked before the task was queued, so this cannot fail.
        Ok(bls::aggregate_verify(&keys, &msgs, &self.signature).unwrap_or(false))
    }

    fn resolve(&mut self, _env: Env, output: bool) -> napi::Result<bool> {
        Ok(output)
    }
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn bls_aggregate_verify_async(
    public_keys: Vec<Uint8Array>,
    messages: Vec<Uint8Array>,
    signature: Uint8Array,
) -> Result<AsyncTask<BlsAggregateVerify>> {
    if public_keys.len() != messages.len() {
        return Err(invalid_argument(format!(
            "{} public keys for {} messages",
            public_keys.len(),
            messages.len()
        )));
    }
    Ok(AsyncTask::new(BlsAggregateVerify {
        public_keys: public_keys.iter().map(|k| k.to_vec()).collect(),
        messages: messages.iter().map(|m| m.to_vec()).collect(),
        signature: signature.to_vec(),
    }))
}

pub struct BlsVerifyBatch {
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

impl Task for BlsVerifyBatch {
    type Output = Vec<bool>;
    type JsValue = Vec<bool>;

    fn compute(&mut self) -> napi::Result<Vec<bool>> {
        let checks: Vec<bls::SignatureCheck> = self
            .items
            .iter()
            .map(|(public_key, message, signature)| bls::SignatureCheck {
                public_key,
                message,
                signature,
            })
            .collect();
        Ok(bls::verify_batch(&checks))
    }

    fn resolve(&mut self, _env: Env, output: Vec<bool>) -> napi::Result<Vec<bool>> {
        Ok(output)
    }
}

/// Verifies independent signatures off the main thread; one verdict per item.
#[napi(ts_return_type = "Promise<Array<boolean>>")]
pub fn bls_verify_batch_async(
    public_keys: Vec<Uint8Array>,
    messages: Vec<Uint8Array>,
    signatures: Vec<Uint8Array>,
) -> Result<AsyncTask<BlsVerifyBatch>> {
    if public_keys.len() != messages.len() || messages.len() != signatures.len() {
        return Err(invalid_argument(format!(
            "batch lengths differ: {} public keys, {} messages, {} signatures",
            public_keys.len(),
            messages.len(),
            signatures.len()
        )));
    }
    let items = public_keys
        .iter()
        .zip(&messages)
        .zip(&signatures)
        .map(|((k, m), s)| (k.to_vec(), m.to_vec(), s.to_vec()))
        .collect();
    Ok(AsyncTask::new(BlsVerifyBatch { items }))
}

// ---- drand (unchained, quicknet scheme) -------------------------------------------------------

/// 96-byte G2 public key for an unchained (min-sig) beacon key.
#[napi]
pub fn drand_unchained_public_key(private_key: &[u8]) -> Result<Buffer> {
    ledger_crypto::drand::unchained_public_key(private_key)
        .map(|k| k.to_vec().into())
        .map_err(from_crypto)
}

/// 48-byte G1 signature with the unchained DST.
#[napi]
pub fn drand_unchained_sign(private_key: &[u8], message: &[u8]) -> Result<Buffer> {
    ledger_crypto::drand::unchained_sign(private_key, message)
        .map(|s| s.to_vec().into())
        .map_err(from_crypto)
}

#[napi]
pub fn drand_unchained_verify(public_key: &[u8], message: &[u8], signature: &[u8]) -> bool {
    ledger_crypto::drand::unchained_verify(public_key, message, signature)
}
