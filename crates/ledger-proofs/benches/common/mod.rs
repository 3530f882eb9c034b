//! Reading the JSON inputs files `bench/*.bench.ts` write for the Rust benches, so both sides
//! run on the same inputs. A malformed file panics naming the field: these are benches.

use std::time::{Duration, Instant};

use ledger_proofs::post::{PoStInputs, PoStSector};
use ledger_proofs::registry::post_proof;
use serde_json::Value;

pub fn read_inputs(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read inputs")).expect("JSON")
}

/// The command-line arguments; `cargo bench` appends `--bench`.
pub fn arguments() -> Vec<String> {
    std::env::args().skip(1).filter(|a| a != "--bench").collect()
}

pub fn field<'a>(value: &'a Value, name: &str) -> &'a Value {
    value.get(name).unwrap_or_else(|| panic!("inputs lack {name}"))
}

pub fn text<'a>(value: &'a Value, name: &str) -> &'a str {
    field(value, name)
        .as_str()
        .unwrap_or_else(|| panic!("{name} must be a string"))
}

pub fn hex_bytes(value: &Value, name: &str) -> Vec<u8> {
    hex::decode(text(value, name)).unwrap_or_else(|_| panic!("{name} must be hex"))
}

pub fn bytes32(value: &Value, name: &str) -> [u8; 32] {
    hex_bytes(value, name)
        .try_into()
        .unwrap_or_else(|_| panic!("{name} must be 32 bytes"))
}

pub fn number(value: &Value, name: &str) -> u64 {
    text(value, name)
        .parse()
        .unwrap_or_else(|_| panic!("{name} must be a decimal string"))
}

/// `{"sectorNumber": "0", "commR": "<hex>"}` entries of `sectors`.
pub fn post_sectors(inputs: &Value) -> Vec<PoStSector> {
    field(inputs, "sectors")
        .as_array()
        .expect("sectors must be an array")
        .iter()
        .map(|s| PoStSector {
            sector_number: number(s, "sectorNumber"),
            comm_r: bytes32(s, "commR"),
        })
        .collect()
}

/// `{"postProof": 0, "minerId": "1000", "randomness": "<hex>", …}` over `sectors`.
pub fn post_inputs<'a>(inputs: &Value, sectors: &'a [PoStSector]) -> PoStInputs<'a> {
    PoStInputs {
        proof_type: post_proof(field(inputs, "postProof").as_i64().expect("postProof")).expect("PoSt proof type"),
        miner_id: number(inputs, "minerId"),
        randomness: bytes32(inputs, "randomness"),
        sectors,
    }
}

/// Mean time of `run` over at least `budget` and `minimum` calls, as `{iterations, meanMs, opsPerSec}`.
pub fn timed(budget: Duration, minimum: u32, mut run: impl FnMut()) -> Value {
    let started = Instant::now();
    let mut iterations = 0u32;
    while started.elapsed() < budget || iterations < minimum {
        run();
        iterations += 1;
    }
    let mean_ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(iterations);
    serde_json::json!({ "iterations": iterations, "meanMs": mean_ms, "opsPerSec": 1000.0 / mean_ms })
}
