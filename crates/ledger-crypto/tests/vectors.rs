//! Conformance against public Filecoin data nobody on this project wrote (../shared/vectors):
//! Zondax signing vectors, Lotus BLS message-signing vectors and real mainnet blocks (epochs 0–39).

use std::collections::HashMap;
use std::path::PathBuf;

use base64::Engine;
use ledger_crypto::blake2b::{blake2b_160, blake2b_256};
use ledger_crypto::{bls, secp};
use serde_json::Value;

fn vectors_dir() -> PathBuf {
    match std::env::var_os("LEDGER_VECTORS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors"),
    }
}

fn read_json(path: &str) -> Value {
    let full = vectors_dir().join(path);
    let text = std::fs::read_to_string(&full)
        .unwrap_or_else(|e| panic!("vector {} unreadable ({e}); set LEDGER_VECTORS_DIR", full.display()));
    serde_json::from_str(&text).unwrap()
}

fn hex_of(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).unwrap()
}

fn b64_of(v: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v.as_str().expect("base64 string"))
        .unwrap()
}

/// Binary CIDv1 (dag-cbor, blake2b-256) of CBOR bytes: what Filecoin signs for a message.
fn message_cid_bytes(cbor: &[u8]) -> Vec<u8> {
    let mut cid = vec![0x01, 0x71, 0xa0, 0xe4, 0x02, 0x20];
    cid.extend_from_slice(&blake2b_256(cbor));
    cid
}

/// Reads one CBOR byte string at `pos`, returning it and the position after it.
fn cbor_bytes(buf: &[u8], pos: usize) -> (&[u8], usize) {
    let head = buf[pos];
    assert_eq!(head >> 5, 2, "expected a CBOR byte string at {pos}");
    let (len, start) = match head & 0x1f {
        n @ 0..=23 => (n as usize, pos + 1),
        24 => (buf[pos + 1] as usize, pos + 2),
        25 => (u16::from_be_bytes([buf[pos + 1], buf[pos + 2]]) as usize, pos + 3),
        other => panic!("unsupported byte string length form {other}"),
    };
    (&buf[start..start + len], start + len)
}

/// The From address bytes of a 10-field message `[0, To, From, …]`.
fn message_from(unsigned: &[u8]) -> Vec<u8> {
    assert_eq!(unsigned[0], 0x8a);
    assert_eq!(unsigned[1], 0x00, "version 0");
    let (_to, next) = cbor_bytes(unsigned, 2);
    cbor_bytes(unsigned, next).0.to_vec()
}

fn flip(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[bit / 8] ^= 1 << (bit % 8);
    out
}

#[test]
fn zondax_bls_keys_and_signatures() {
    let wallet = read_json("signing/zondax_bls_wallet.json");
    let sk = b64_of(&wallet["bls_private_key"]);
    assert_eq!(
        bls::public_key(&sk).unwrap().to_vec(),
        hex_of(&wallet["bls_public_key"])
    );

    // The signature is over the binary CID of the message, made with the wallet key above.
    let signed = read_json("signing/zondax_bls_signature.json");
    let cid = message_cid_bytes(&hex_of(&signed["cbor"]));
    let sig = hex_of(&signed["sig"]);
    assert_eq!(bls::sign(&sk, &cid).unwrap().to_vec(), sig);
    let pk = bls::public_key(&sk).unwrap();
    assert!(bls::verify(&pk, &cid, &sig));
    assert!(!bls::verify(&pk, &flip(&cid, 3), &sig));
    assert!(!bls::verify(&pk, &cid, &flip(&sig, 77)));
}

#[test]
fn zondax_generated_bls_cases_derive_their_keys() {
    let cases = read_json("signing/zondax_generated_test_cases.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let sk = hex_of(&case["sk"]);
        assert_eq!(bls::public_key(&sk).unwrap().to_vec(), hex_of(&case["pk"]));
        assert!(bls::public_key(&flip(&sk, 200)).unwrap().to_vec() != hex_of(&case["pk"]));
    }
}

#[test]
fn zondax_secp256k1_utils() {
    let utils = read_json("signing/zondax_utils.json");
    let pair = &utils["public_from_private"];
    assert_eq!(
        secp::public_key(&hex_of(&pair["private"])).unwrap().to_vec(),
        hex_of(&pair["public"])
    );

    let cid = &utils["cid_bytes"];
    assert_eq!(message_cid_bytes(&hex_of(&cid["cbor_message"])), hex_of(&cid["cid"]));
    for digest in utils["msg_digest"].as_array().unwrap() {
        let cid = message_cid_bytes(&hex_of(&digest["cbor_message"]));
        assert_eq!(blake2b_256(&cid).to_vec(), hex_of(&digest["digest"]));
    }

    let test = &utils["signature_test"];
    let sk = hex_of(&test["private"]);
    let cid = message_cid_bytes(&hex_of(&test["message"]));
    let expected = hex_of(&test["signature"]);
    assert_eq!(secp::sign(&sk, &cid).unwrap().to_vec(), expected);
    let payload = blake2b_160(&secp::public_key(&sk).unwrap());
    assert!(secp::verify(&expected, &cid, &payload));
    for bit in [0, 100, 300, 511] {
        assert!(
            !secp::verify(&flip(&expected, bit), &cid, &payload),
            "flipped signature bit {bit}"
        );
    }
    assert!(!secp::verify(&expected, &flip(&cid, 60), &payload));
    assert!(!secp::verify(&expected, &cid, &flip(&payload, 9)));
}

#[test]
fn lotus_bls_message_signing_vectors() {
    let vectors = read_json("serialization/message_signing.json");
    for v in vectors.as_array().unwrap() {
        let sk = b64_of(&v["PrivateKey"]);
        let cid = hex_of(&v["CidHexBytes"]);
        let sig = b64_of(&v["Signature"]["Data"]);
        assert_eq!(v["Signature"]["Type"], 2);
        assert_eq!(bls::sign(&sk, &cid).unwrap().to_vec(), sig);
        assert!(bls::verify(&bls::public_key(&sk).unwrap(), &cid, &sig));
    }
}

struct Header {
    cid: String,
    decoded: Value,
    derived: Value,
}

fn mainnet_headers() -> Vec<Header> {
    let file = read_json("blocks/export40_headers.json");
    file["headers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| Header {
            cid: h["cid"].as_str().unwrap().to_string(),
            decoded: h["decoded"].clone(),
            derived: h["derived"].clone(),
        })
        .collect()
}

/// Signature fields in the JSON carry the leading type byte (2 = BLS).
fn bls_signature_field(v: &Value) -> Vec<u8> {
    let bytes = hex_of(v);
    assert_eq!(bytes[0], 2, "BLS signature type byte");
    bytes[1..].to_vec()
}

#[test]
fn mainnet_block_signatures_tickets_and_election_proofs() {
    let headers: Vec<Header> = mainnet_headers().into_iter().filter(|h| !h.derived.is_null()).collect();
    assert_eq!(headers.len(), 48);
    for h in &headers {
        let worker = hex_of(&h.derived["worker_bls_pubkey_hex"]);
        let signing_bytes = hex_of(&h.derived["signing_bytes_hex"]);
        let block_sig = bls_signature_field(&h.decoded["BlockSig_hex"]);
        assert!(
            bls::verify(&worker, &signing_bytes, &block_sig),
            "block {} signature",
            h.cid
        );
        assert!(!bls::verify(&worker, &flip(&signing_bytes, 40), &block_sig));
        assert!(!bls::verify(&worker, &signing_bytes, &flip(&block_sig, 300)));
        assert!(!bls::verify(&flip(&worker, 100), &signing_bytes, &block_sig));

        let ticket = hex_of(&h.decoded["Ticket"]["VRFProof_hex"]);
        assert!(
            bls::verify(&worker, &hex_of(&h.derived["ticket_vrf_input_hex"]), &ticket),
            "ticket {}",
            h.cid
        );
        let election = hex_of(&h.decoded["ElectionProof"]["VRFProof_hex"]);
        assert!(bls::verify(
            &worker,
            &hex_of(&h.derived["election_vrf_input_hex"]),
            &election
        ));
    }
}

/// A BLS sender's public key and the binary CID of its message.
type KeyAndMessage = (Vec<u8>, Vec<u8>);

#[test]
fn mainnet_messages_recover_senders_and_aggregates_verify() {
    let file = read_json("blocks/export40_messages.json");
    let messages = file["messages"].as_array().unwrap();
    let mut bls_by_block: HashMap<String, Vec<KeyAndMessage>> = HashMap::new();
    let mut secp_count = 0;
    for m in messages {
        let cbor = hex_of(&m["cbor_hex"]);
        match m["kind"].as_str().unwrap() {
            "secp256k1_signed_message" => {
                let unsigned = hex_of(&m["unsigned_message_cbor_hex_derived"]);
                let from = message_from(&unsigned);
                assert_eq!(from[0], 1, "secp sender is an f1 address");
                // SignedMessage = [message, signature bytes (type 1 || r || s || v)].
                let (sig, end) = cbor_bytes(&cbor, 1 + unsigned.len());
                assert_eq!(end, cbor.len());
                assert_eq!(sig[0], 1);
                let cid = message_cid_bytes(&unsigned);
                let key = secp::recover(&sig[1..], &cid).unwrap();
                assert_eq!(blake2b_160(&key).to_vec(), from[1..].to_vec(), "message {}", m["cid"]);
                assert!(!secp::verify(&sig[1..], &flip(&cid, 77), &from[1..]));
                secp_count += 1;
            }
            "bls_unsigned_message" => {
                let from = message_from(&cbor);
                assert_eq!(from[0], 3, "BLS sender is an f3 address");
                for block in m["included_in"].as_array().unwrap() {
                    let entry = bls_by_block.entry(block.as_str().unwrap().to_string()).or_default();
                    entry.push((from[1..].to_vec(), message_cid_bytes(&cbor)));
                }
            }
            other => panic!("unexpected message kind {other}"),
        }
    }
    assert_eq!(secp_count, 206);

    let headers = mainnet_headers();
    let mut checked = 0;
    for h in headers.iter().filter(|h| bls_by_block.contains_key(&h.cid)) {
        let aggregate = bls_signature_field(&h.decoded["BLSAggregate_hex"]);
        let pairs = &bls_by_block[&h.cid];
        let keys: Vec<&[u8]> = pairs.iter().map(|(k, _)| k.as_slice()).collect();
        let msgs: Vec<&[u8]> = pairs.iter().map(|(_, m)| m.as_slice()).collect();
        assert!(
            bls::aggregate_verify(&keys, &msgs, &aggregate).unwrap(),
            "block {} aggregate",
            h.cid
        );
        assert!(!bls::aggregate_verify(&keys, &msgs, &flip(&aggregate, 500)).unwrap());
        let mut tampered: Vec<Vec<u8>> = msgs.iter().map(|m| m.to_vec()).collect();
        tampered[0] = flip(&tampered[0], 100);
        let tampered_refs: Vec<&[u8]> = tampered.iter().map(Vec::as_slice).collect();
        assert!(!bls::aggregate_verify(&keys, &tampered_refs, &aggregate).unwrap());
        checked += 1;
    }
    // Every block that carries BLS messages was checked.
    let file = read_json("blocks/export40_headers.json");
    let with_bls = file["headers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| {
            h["txmeta"]["bls_message_cids"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        })
        .count();
    assert_eq!(checked, with_bls);
    assert!(checked > 0);
}
