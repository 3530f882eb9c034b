use std::time::Instant;

use ledger_proofs::piece::preseal_piece;
use ledger_proofs::registry::{seal_proof, DEVNET_SEAL_PROOF};
use ledger_proofs::seal::{commit_sector, precommit_sector, unpadded_sector_size, verify_seal, SealToVerify};
use ledger_proofs::sector_files::SectorFiles;
use ledger_proofs::Circuit;
use tempfile::TempDir;

use crate::support::{dirs, flip_byte, params};

#[test]
fn a_sealed_sector_proof_verifies_and_a_tampered_one_does_not() {
    dirs();
    params(Circuit::Porep);
    let proof_type = seal_proof(DEVNET_SEAL_PROOF).unwrap();
    let root = TempDir::new().unwrap();
    let (miner_id, sector_number) = (1000, 42);
    let files = SectorFiles::new(root.path(), miner_id, sector_number);
    let (ticket, seed) = ([3u8; 32], [4u8; 32]);
    let piece = preseal_piece(miner_id, sector_number, unpadded_sector_size(proof_type));

    let pre_commit = precommit_sector(proof_type, &files, miner_id, sector_number, ticket, piece).unwrap();
    let started = Instant::now();
    let proof = commit_sector(proof_type, &files, miner_id, sector_number, ticket, seed, &pre_commit).unwrap();
    eprintln!("C1+C2 took {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(proof.len(), 192);

    let seal = SealToVerify {
        proof_type,
        miner_id,
        sector_number,
        ticket,
        seed,
        comm_r: pre_commit.comm_r,
        comm_d: pre_commit.comm_d,
        proof: &proof,
    };
    assert!(verify_seal(&seal).unwrap());
    assert!(!verify_seal(&SealToVerify {
        proof: &flip_byte(&proof, 77),
        ..seal
    })
    .unwrap());
    assert!(!verify_seal(&SealToVerify {
        seed: [5u8; 32],
        ..seal
    })
    .unwrap());
    assert!(!verify_seal(&SealToVerify {
        sector_number: 43,
        ..seal
    })
    .unwrap());
    assert!(!verify_seal(&SealToVerify {
        comm_d: pre_commit.comm_r,
        ..seal
    })
    .unwrap());
}
