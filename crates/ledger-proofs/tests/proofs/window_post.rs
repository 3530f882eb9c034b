use std::time::Instant;

use ledger_proofs::post::{generate_window_post, verify_window_post, PoStInputs, PoStSector};
use ledger_proofs::registry::{post_proof, DEVNET_WINDOW_POST_PROOF};
use ledger_proofs::Circuit;

use crate::support::{flip_byte, params, preseal};

#[test]
fn window_post_over_presealed_sectors_verifies_and_nothing_else_does() {
    params(Circuit::WindowPost);
    let miner = preseal(1000, 3);
    let inputs = PoStInputs {
        proof_type: post_proof(DEVNET_WINDOW_POST_PROOF).unwrap(),
        miner_id: miner.id,
        randomness: [9u8; 32],
        sectors: &miner.sectors,
    };

    let started = Instant::now();
    let proof = generate_window_post(miner.root.path(), &inputs).unwrap();
    eprintln!(
        "window PoSt over 3 sectors generated in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    // Two sectors per 2 KiB partition: three sectors take two partitions.
    assert_eq!(proof.len(), 2 * 192);
    assert!(verify_window_post(&inputs, &proof).unwrap());

    for index in [0, 200, 383] {
        assert!(!verify_window_post(&inputs, &flip_byte(&proof, index)).unwrap());
    }
    let check = |inputs: PoStInputs<'_>| verify_window_post(&inputs, &proof).unwrap();
    let mut other_randomness = inputs.randomness;
    other_randomness[5] ^= 1;
    assert!(!check(PoStInputs {
        randomness: other_randomness,
        ..inputs
    }));
    // Another miner's sectors with the same numbers (see the winning PoSt test for why the id
    // alone does not change the proof's public inputs).
    let other_miner = preseal(1001, 3);
    assert!(!check(PoStInputs {
        miner_id: other_miner.id,
        sectors: &other_miner.sectors,
        ..inputs
    }));
    let two = &miner.sectors[..2];
    assert!(!check(PoStInputs { sectors: two, ..inputs }));
    let swapped: Vec<PoStSector> = miner
        .sectors
        .iter()
        .enumerate()
        .map(|(i, s)| PoStSector {
            comm_r: miner.sectors[(i + 1) % 3].comm_r,
            ..*s
        })
        .collect();
    assert!(!check(PoStInputs {
        sectors: &swapped,
        ..inputs
    }));
}
