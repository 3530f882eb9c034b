//! Times winning PoSt verification straight from Rust, for the N-API overhead figure of
//! `npm run bench:proofs` (which runs this on the same inputs and compares).
//!
//!   cargo bench -p ledger-proofs --bench verify_winning_post -- <inputs.json> <seconds>
//!
//! `inputs.json`: `{"postProof": 0, "minerId": "1000", "randomness": "<hex>",
//! "sectors": [{"sectorNumber": "0", "commR": "<hex>"}], "proof": "<hex>"}`.
//! Prints `{"iterations": n, "meanMs": m, "opsPerSec": o}`.

use std::time::{Duration, Instant};

use ledger_proofs::post::{verify_winning_post, PoStInputs, PoStSector};
use ledger_proofs::registry::post_proof;
use serde_json::Value;

fn field<'a>(value: &'a Value, name: &str) -> &'a Value {
    value.get(name).unwrap_or_else(|| panic!("inputs lack {name}"))
}

fn text<'a>(value: &'a Value, name: &str) -> &'a str {
    field(value, name)
        .as_str()
        .unwrap_or_else(|| panic!("{name} must be a string"))
}

fn bytes32(value: &Value, name: &str) -> [u8; 32] {
    hex::decode(text(value, name))
        .expect("hex")
        .try_into()
        .unwrap_or_else(|_| panic!("{name} must be 32 bytes"))
}

fn main() {
    // `cargo bench` appends `--bench`.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [path, seconds] = &args[..] else {
        panic!("usage: verify_winning_post <inputs.json> <seconds>");
    };
    let inputs: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read inputs")).expect("JSON");
    let sectors: Vec<PoStSector> = field(&inputs, "sectors")
        .as_array()
        .expect("sectors")
        .iter()
        .map(|s| PoStSector {
            sector_number: text(s, "sectorNumber").parse().expect("sector number"),
            comm_r: bytes32(s, "commR"),
        })
        .collect();
    let post = PoStInputs {
        proof_type: post_proof(field(&inputs, "postProof").as_i64().expect("postProof")).expect("PoSt proof type"),
        miner_id: text(&inputs, "minerId").parse().expect("miner id"),
        randomness: bytes32(&inputs, "randomness"),
        sectors: &sectors,
    };
    let proof = hex::decode(text(&inputs, "proof")).expect("hex proof");
    let budget = Duration::from_secs_f64(seconds.parse().expect("seconds"));

    // The first call loads and prepares the verifying key; JS warms up the same way.
    for _ in 0..5 {
        assert!(
            verify_winning_post(&post, &proof).expect("verify"),
            "the proof must verify"
        );
    }
    let started = Instant::now();
    let mut iterations = 0u32;
    while started.elapsed() < budget || iterations < 10 {
        assert!(verify_winning_post(&post, &proof).expect("verify"));
        iterations += 1;
    }
    let mean_ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(iterations);
    println!(
        "{}",
        serde_json::json!({ "iterations": iterations, "meanMs": mean_ms, "opsPerSec": 1000.0 / mean_ms })
    );
}
