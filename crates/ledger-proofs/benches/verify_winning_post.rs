//! Times winning PoSt verification straight from Rust, for the N-API overhead figure of
//! `npm run bench:proofs` (which runs this on the same inputs and compares).
//!
//!   cargo bench -p ledger-proofs --bench verify_winning_post -- <inputs.json> <seconds>
//!
//! `inputs.json`: `{"postProof": 0, "minerId": "1000", "randomness": "<hex>",
//! "sectors": [{"sectorNumber": "0", "commR": "<hex>"}], "proof": "<hex>"}`.
//! Prints `{"iterations": n, "meanMs": m, "opsPerSec": o}`.

mod common;

use std::time::Duration;

use common::{arguments, hex_bytes, post_inputs, post_sectors, read_inputs, timed};
use ledger_proofs::post::verify_winning_post;

fn main() {
    let args = arguments();
    let [path, seconds] = &args[..] else {
        panic!("usage: verify_winning_post <inputs.json> <seconds>");
    };
    let inputs = read_inputs(path);
    let sectors = post_sectors(&inputs);
    let post = post_inputs(&inputs, &sectors);
    let proof = hex_bytes(&inputs, "proof");
    let budget = Duration::from_secs_f64(seconds.parse().expect("seconds"));

    // The first call loads and prepares the verifying key; JS warms up the same way.
    for _ in 0..5 {
        assert!(
            verify_winning_post(&post, &proof).expect("verify"),
            "the proof must verify"
        );
    }
    let timing = timed(budget, 10, || {
        assert!(verify_winning_post(&post, &proof).expect("verify"))
    });
    println!("{timing}");
}
