//! Sealing phases and window PoSt straight from Rust (`ledger_proofs`, a thin layer over
//! filecoin-proofs-api), for the N-API overhead figures of `npm run bench:sectors`, which runs
//! this on the same inputs and compares.
//!
//!   cargo bench -p ledger-proofs --bench seal_phases -- seal <inputs.json> <repetitions>
//!   cargo bench -p ledger-proofs --bench seal_phases -- window-post <inputs.json> <seconds>
//!
//! `seal`: `{"dir", "sealProof": 5, "minerId", "sectorNumber", "ticket", "seed", "piece"}` (hex
//! bytes, decimal strings). AddPiece, PC1 and PC2 run `repetitions` times as a chain (PC2 encodes
//! the replica in place), C1 `repetitions` times, C2 once. Prints the median milliseconds per phase
//! (a median, so that one call slowed by the machine does not move the figure), the commitments and
//! the proof.
//!
//! `window-post`: `{"dir", "postProof", "minerId", "randomness", "sectors": [{"sectorNumber",
//! "commR"}]}` over sealed sectors under `dir`: generation (the median of 5 calls) and verification
//! (for `seconds`) of one window PoSt. Prints `{"generate": timing, "verify": timing, "proof"}`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{arguments, bytes32, field, hex_bytes, number, post_inputs, post_sectors, read_inputs, text, timed};
use ledger_proofs::post::{generate_window_post, verify_window_post};
use ledger_proofs::registry::seal_proof;
use ledger_proofs::seal;
use ledger_proofs::sector_files::SectorFiles;
use serde_json::{json, Value};

/// `phase`'s answer and the milliseconds it took.
fn timed_once<T>(phase: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let answer = phase();
    (answer, started.elapsed().as_secs_f64() * 1000.0)
}

/// The median of some timings, in milliseconds.
fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    let middle = ms.len() / 2;
    if ms.len() % 2 == 1 {
        ms[middle]
    } else {
        (ms[middle - 1] + ms[middle]) / 2.0
    }
}

fn seal_phases(inputs: &Value, repetitions: u32) -> Value {
    let proof = seal_proof(field(inputs, "sealProof").as_i64().expect("sealProof")).expect("seal proof type");
    let miner_id = number(inputs, "minerId");
    let sector_number = number(inputs, "sectorNumber");
    let ticket = bytes32(inputs, "ticket");
    let seed = bytes32(inputs, "seed");
    let piece = hex_bytes(inputs, "piece");
    let files = SectorFiles::new(Path::new(text(inputs, "dir")), miner_id, sector_number);

    // PC2 encodes the replica in place, so AddPiece, PC1 and PC2 repeat as a chain; C1 only reads.
    let (mut add_piece_ms, mut pc1_ms, mut pc2_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut pre_commit = None;
    for _ in 0..repetitions {
        let (piece_info, ms) = timed_once(|| seal::add_piece(proof, &files, &piece[..]).expect("AddPiece"));
        add_piece_ms.push(ms);
        let (phase1, ms) = timed_once(|| {
            seal::precommit_phase1(proof, &files, miner_id, sector_number, ticket, piece_info.commitment).expect("PC1")
        });
        pc1_ms.push(ms);
        let (commitments, ms) = timed_once(|| seal::precommit_phase2(phase1, &files).expect("PC2"));
        pc2_ms.push(ms);
        pre_commit = Some(commitments);
    }
    let pre_commit = pre_commit.expect("at least one repetition");
    let to_commit = seal::SectorToCommit {
        proof,
        files: &files,
        miner_id,
        sector_number,
        ticket,
        seed,
        pre_commit,
    };
    let mut c1 = None;
    let mut c1_ms = Vec::new();
    for _ in 0..repetitions {
        let (output, ms) = timed_once(|| seal::commit_phase1(&to_commit).expect("C1"));
        c1_ms.push(ms);
        c1 = Some(output);
    }
    let c1 = c1.expect("at least one repetition");
    let (seal_proof_bytes, c2_ms) = timed_once(|| seal::commit_phase2(c1, miner_id, sector_number).expect("C2"));
    json!({
        "phasesMs": {
            "AddPiece": median(add_piece_ms), "PC1": median(pc1_ms), "PC2": median(pc2_ms), "C1": median(c1_ms),
            "C2": c2_ms
        },
        "commR": hex::encode(pre_commit.comm_r),
        "commD": hex::encode(pre_commit.comm_d),
        "proof": hex::encode(seal_proof_bytes),
    })
}

/// Window PoSt generations timed (seconds each on 2 KiB): their median is the figure.
const GENERATE_CALLS: u32 = 5;

fn window_post(inputs: &Value, budget: Duration) -> Value {
    let sectors = post_sectors(inputs);
    let post = post_inputs(inputs, &sectors);
    let root = Path::new(text(inputs, "dir"));
    let mut proof = generate_window_post(root, &post).expect("generate window PoSt");
    let generate_ms = median(
        (0..GENERATE_CALLS)
            .map(|_| {
                let (answer, ms) = timed_once(|| generate_window_post(root, &post).expect("generate"));
                proof = answer;
                ms
            })
            .collect(),
    );
    let generate = json!({ "iterations": GENERATE_CALLS, "medianMs": generate_ms });
    // The first verification loads the verifying key; JS warms up the same way.
    assert!(
        verify_window_post(&post, &proof).expect("verify"),
        "the proof must verify"
    );
    let verify = timed(budget, 10, || {
        assert!(verify_window_post(&post, &proof).expect("verify"))
    });
    json!({ "generate": generate, "verify": verify, "proof": hex::encode(proof) })
}

fn main() {
    let args = arguments();
    let [mode, path, amount] = &args[..] else {
        panic!("usage: seal_phases seal <inputs.json> <repetitions> | window-post <inputs.json> <seconds>");
    };
    let inputs = read_inputs(path);
    let answer = match mode.as_str() {
        "seal" => seal_phases(&inputs, amount.parse().expect("repetitions")),
        "window-post" => window_post(&inputs, Duration::from_secs_f64(amount.parse().expect("seconds"))),
        other => panic!("unknown mode {other}: seal or window-post"),
    };
    println!("{answer}");
}
