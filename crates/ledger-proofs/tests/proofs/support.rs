use std::sync::OnceLock;
use std::time::Instant;

use ledger_proofs::param_cache::ensure;
use ledger_proofs::post::PoStSector;
use ledger_proofs::preseal::preseal_sector;
use ledger_proofs::registry::{seal_proof, DEVNET_SEAL_PROOF};
use ledger_proofs::settings::{configure, ProofsDirs};
use ledger_proofs::Circuit;
use tempfile::TempDir;

/// The shared directories, configured once for the whole test binary.
pub fn dirs() -> &'static ProofsDirs {
    static DIRS: OnceLock<ProofsDirs> = OnceLock::new();
    DIRS.get_or_init(|| {
        let dirs = ProofsDirs::resolve(None);
        configure(&dirs).expect("configure the proofs library");
        dirs
    })
}

/// Generates `circuit`'s parameters into the shared cache unless they are there.
pub fn params(circuit: Circuit) {
    let ensured = ensure(&dirs().parameter_cache, circuit).expect("parameters");
    if ensured.generated {
        eprintln!("generated {} parameters in {:.1} s", circuit.name(), ensured.seconds);
    }
}

/// A miner's pre-sealed 2 KiB sectors in a directory that is removed on drop.
pub struct Miner {
    pub id: u64,
    pub sectors: Vec<PoStSector>,
    pub root: TempDir,
}

pub fn preseal(id: u64, count: u64) -> Miner {
    dirs();
    let root = TempDir::new().expect("temp dir");
    let started = Instant::now();
    let sectors = (0..count)
        .map(|number| {
            let pre =
                preseal_sector(root.path(), seal_proof(DEVNET_SEAL_PROOF).unwrap(), id, number).expect("pre-seal");
            PoStSector {
                sector_number: number,
                comm_r: pre.comm_r,
            }
        })
        .collect();
    eprintln!("pre-sealed {count} sectors in {:.2} s", started.elapsed().as_secs_f64());
    Miner { id, sectors, root }
}

pub fn flip_byte(proof: &[u8], index: usize) -> Vec<u8> {
    let mut tampered = proof.to_vec();
    tampered[index] ^= 0x01;
    tampered
}
