//! The multi-scalar multiplications of a winning PoSt proof, side by side, on the real proving key
//! with random full scalars: the H query (131,071 G1 points) and the B query in G2 (66,792 points).
//! G1: bellperson's CPU bucket method (ec-gpu-gen), blst's Pippenger, our batch-affine Pippenger;
//! G2: blst and ours. Prints the ratios.
//!
//! `node scripts/cargo.mjs bench -p ledger-proofs --bench msm_compare -- <winning PoSt .params> [runs]`

use std::sync::Arc;
use std::time::Instant;

use bellperson::groth16::Parameters;
use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, MultiPoint};
use blstrs::{Bls12, G1Affine, G1Projective, G2Projective, Scalar};
use ec_gpu_gen::multiexp_cpu::{multiexp_cpu, FullDensity};
use ec_gpu_gen::threadpool::Worker;
use ff::{Field, PrimeField};
use ledger_proofs::groth16::batch_affine::{self, G1, G2};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The best of `runs` timings of `f`, in milliseconds, and its last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        out = Some(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, out.expect("at least one run"))
}

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").skip(1).collect();
    let path = args.first().expect("usage: msm_compare <winning PoSt .params> [runs]");
    let runs: usize = args.get(1).map_or(3, |r| r.parse().expect("runs"));
    let params =
        Parameters::<Bls12>::read(std::fs::File::open(path).map(std::io::BufReader::new).unwrap(), false).unwrap();
    let mut rng = ChaCha20Rng::from_seed([1; 32]);

    let h: Arc<Vec<G1Affine>> = params.h.clone();
    let n = h.len();
    let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
    let bytes: Vec<u8> = scalars.iter().flat_map(|s| s.to_bytes_le()).collect();
    let reprs = Arc::new(scalars.iter().map(|s| s.to_repr()).collect::<Vec<_>>());
    let worker = Worker::new();
    let points: &[blst_p1_affine] = unsafe { std::slice::from_raw_parts(h.as_ptr().cast(), n) };

    let (bellperson_ms, a) = best(runs, || {
        multiexp_cpu::<_, _, G1Affine, _>(&worker, (h.clone(), 0), FullDensity, reprs.clone())
            .wait()
            .unwrap()
    });
    let (blst_ms, b) = best(runs, || points.mult(&bytes, 255));
    let (ours_ms, c) = best(runs, || batch_affine::msm::<G1>(points, &bytes));
    let b: G1Projective = unsafe { std::mem::transmute::<blst_p1, G1Projective>(b) };
    let c: G1Projective = unsafe { std::mem::transmute::<blst_p1, G1Projective>(c) };
    assert!(a == b && b == c, "the three G1 sums differ");
    println!(
        "G1 n={n}: bellperson {bellperson_ms:.0} ms, blst {blst_ms:.0} ms, batch-affine {ours_ms:.0} ms \
         (blst/ours {:.2}×, bellperson/ours {:.2}×)",
        blst_ms / ours_ms,
        bellperson_ms / ours_ms
    );

    let b_g2 = &params.b_g2;
    let m = b_g2.len();
    let points: &[blst_p2_affine] = unsafe { std::slice::from_raw_parts(b_g2.as_ptr().cast(), m) };
    let bytes = &bytes[..m * 32];
    let (blst_ms, b) = best(runs, || points.mult(bytes, 255));
    let (ours_ms, c) = best(runs, || batch_affine::msm::<G2>(points, bytes));
    let b: G2Projective = unsafe { std::mem::transmute::<blst_p2, G2Projective>(b) };
    let c: G2Projective = unsafe { std::mem::transmute::<blst_p2, G2Projective>(c) };
    assert!(b == c, "the G2 sums differ");
    println!(
        "G2 n={m}: blst {blst_ms:.0} ms, batch-affine {ours_ms:.0} ms (blst/ours {:.2}×)",
        blst_ms / ours_ms
    );
}
