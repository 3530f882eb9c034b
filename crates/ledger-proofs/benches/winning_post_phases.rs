//! Winning PoSt generation timed straight from Rust, wall and CPU time: ours
//! (`ledger_proofs::post::generate_winning_post`: our Groth16 prover, then verification) against
//! the library's `generate_winning_post` on the same sector, plus the vanilla proof alone (Merkle
//! paths read from the sector cache). `LEDGER_BENCH_LOG=debug` adds bellperson's step timings.
//!
//!   node scripts/cargo.mjs bench -p ledger-proofs --bench winning_post_phases -- [repetitions]
//!
//! Prints one JSON object with milliseconds per call.

use std::collections::BTreeMap;
use std::time::Instant;

use filecoin_proofs_api::post::{
    generate_fallback_sector_challenges, generate_single_vanilla_proof,
    generate_winning_post as api_generate_winning_post,
};
use filecoin_proofs_api::{PrivateReplicaInfo, SectorId};
use ledger_proofs::inputs::{mask_post_randomness, prover_id};
use ledger_proofs::param_cache::ensure;
use ledger_proofs::post::{generate_winning_post, winning_post_sector_challenge, PoStInputs, PoStSector};
use ledger_proofs::preseal::preseal_sector;
use ledger_proofs::registry::{post_proof, seal_proof, DEVNET_SEAL_PROOF, DEVNET_WINNING_POST_PROOF};
use ledger_proofs::sector_files::SectorFiles;
use ledger_proofs::settings::{configure, ProofsDirs};
use ledger_proofs::Circuit;

fn millis(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

/// CPU time of the whole process (all threads), in ms: on a shared machine wall time mostly
/// measures the neighbours, CPU time measures the work.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th overall.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // Linux reports clock ticks of 10 ms.
    (ticks(11) + ticks(12)) * 10.0
}

fn timing(wall: Instant, cpu_before: f64) -> String {
    format!(
        "{{\"wallMs\": {:.0}, \"cpuMs\": {:.0}}}",
        millis(wall),
        cpu_ms() - cpu_before
    )
}

/// bellperson's own step timings (`LEDGER_BENCH_LOG=debug`) on stderr, stamped from process start.
struct StderrLog(Instant);

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        ["bellperson", "filecoin_proofs", "ledger_proofs"]
            .iter()
            .any(|crate_name| metadata.target().starts_with(crate_name))
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("{:>9.1} ms {} {}", millis(self.0), record.target(), record.args());
        }
    }
    fn flush(&self) {}
}

fn main() {
    if let Ok(level) = std::env::var("LEDGER_BENCH_LOG") {
        let logger: &'static StderrLog = Box::leak(Box::new(StderrLog(Instant::now())));
        log::set_logger(logger).expect("one logger");
        log::set_max_level(level.parse().expect("a log level"));
    }
    // `cargo bench` appends `--bench`.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let repetitions: usize = args.first().map(|a| a.parse().expect("repetitions")).unwrap_or(3);

    let dirs = ProofsDirs::resolve(None);
    configure(&dirs).expect("configure the proofs library");
    ensure(&dirs.parameter_cache, Circuit::WinningPost).expect("winning PoSt parameters");

    let root = std::env::temp_dir().join(format!("ledger-winning-phases-{}", std::process::id()));
    let miner_id = 1000;
    let seal = seal_proof(DEVNET_SEAL_PROOF).unwrap();
    let sectors: Vec<PoStSector> = (0..4)
        .map(|number| PoStSector {
            sector_number: number,
            comm_r: preseal_sector(&root, seal, miner_id, number).expect("pre-seal").comm_r,
        })
        .collect();
    let proof_type = post_proof(DEVNET_WINNING_POST_PROOF).unwrap();
    let randomness = [7u8; 32];

    let started = Instant::now();
    let index = winning_post_sector_challenge(proof_type, miner_id, randomness, sectors.len() as u64).unwrap()[0];
    let challenge_ms = millis(started);
    let challenged = [sectors[index as usize]];
    let inputs = PoStInputs {
        proof_type,
        miner_id,
        randomness,
        sectors: &challenged,
    };

    // Ours (ledger_proofs::post, which also verifies what it made), then the library's own path.
    let mut ours = Vec::new();
    for _ in 0..repetitions {
        let (wall, cpu) = (Instant::now(), cpu_ms());
        let proof = generate_winning_post(&root, &inputs).expect("winning PoSt");
        ours.push(timing(wall, cpu));
        assert_eq!(proof.len(), 192);
    }

    let masked = mask_post_randomness(randomness);
    let prover = prover_id(miner_id);
    let sector_id = SectorId::from(challenged[0].sector_number);
    let files = SectorFiles::new(&root, miner_id, challenged[0].sector_number);
    let replica = PrivateReplicaInfo::new(proof_type, challenged[0].comm_r, files.cache, files.sealed);
    let mut library = Vec::new();
    let mut vanilla = Vec::new();
    for _ in 0..repetitions {
        let (wall, cpu) = (Instant::now(), cpu_ms());
        let replicas = BTreeMap::from([(sector_id, replica.clone())]);
        api_generate_winning_post(&masked, &replicas, prover).expect("library winning PoSt");
        library.push(timing(wall, cpu));
        // The vanilla part alone (Merkle paths from the sector cache).
        let (wall, cpu) = (Instant::now(), cpu_ms());
        let challenges = generate_fallback_sector_challenges(proof_type, &masked, &[sector_id], prover).unwrap();
        generate_single_vanilla_proof(proof_type, sector_id, &replica, &challenges[&sector_id]).unwrap();
        vanilla.push(timing(wall, cpu));
    }
    std::fs::remove_dir_all(&root).ok();

    println!(
        "{{\"sectorChallengeMs\": {challenge_ms:.2}, \"ours\": [{}], \"library\": [{}], \"vanillaOnly\": [{}]}}",
        ours.join(", "),
        library.join(", "),
        vanilla.join(", ")
    );
}
