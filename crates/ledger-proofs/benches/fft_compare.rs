//! H = (A·B − C) / Z for a winning PoSt-sized circuit (a 2^17 domain), side by side: bellperson's
//! `EvaluationDomain` (what its CPU prover does) and ours (`groth16::fft`). Checks they agree and
//! prints the ratio.
//!
//! `node scripts/cargo.mjs bench -p ledger-proofs --bench fft_compare -- [runs]`

use std::time::Instant;

use bellperson::domain::EvaluationDomain;
use bellperson::gpu::LockedFftKernel;
use blstrs::Scalar;
use ec_gpu_gen::threadpool::Worker;
use ff::Field;
use ledger_proofs::groth16::fft::h_coefficients;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Constraints plus inputs of the 2 KiB winning PoSt circuit, rounded: over 2^16, so a 2^17 domain.
const CONSTRAINTS: usize = 67_000;

fn bellperson_h(a: Vec<Scalar>, b: Vec<Scalar>, c: Vec<Scalar>) -> Vec<Scalar> {
    let worker = Worker::new();
    let mut kernel: Option<LockedFftKernel<Scalar>> = None;
    let mut a = EvaluationDomain::from_coeffs(a).unwrap();
    let mut b = EvaluationDomain::from_coeffs(b).unwrap();
    let mut c = EvaluationDomain::from_coeffs(c).unwrap();
    EvaluationDomain::ifft_many(&mut [&mut a, &mut b, &mut c], &worker, &mut kernel).unwrap();
    EvaluationDomain::coset_fft_many(&mut [&mut a, &mut b, &mut c], &worker, &mut kernel).unwrap();
    a.mul_assign(&worker, &b);
    a.sub_assign(&worker, &c);
    a.divide_by_z_on_coset(&worker);
    a.icoset_fft(&worker, &mut kernel).unwrap();
    let mut h = a.into_coeffs();
    h.pop();
    h
}

fn main() {
    let runs: usize = std::env::args()
        .filter(|a| a != "--bench")
        .nth(1)
        .map_or(5, |r| r.parse().expect("runs"));
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let mut random = || (0..CONSTRAINTS).map(|_| Scalar::random(&mut rng)).collect::<Vec<_>>();
    let (a, b, c) = (random(), random(), random());
    // Our tables are made on first use and kept: made here, outside the timings.
    let expected = h_coefficients(a.clone(), b.clone(), c.clone());
    let (mut theirs, mut ours) = (f64::MAX, f64::MAX);
    for _ in 0..runs {
        let (x, y, z) = (a.clone(), b.clone(), c.clone());
        let t = Instant::now();
        let h = bellperson_h(x, y, z);
        theirs = theirs.min(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(h, expected, "bellperson and ours differ");
        let (x, y, z) = (a.clone(), b.clone(), c.clone());
        let t = Instant::now();
        let h = h_coefficients(x, y, z);
        ours = ours.min(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(h, expected);
    }
    println!(
        "H over a 2^17 domain ({CONSTRAINTS} constraints), best of {runs}: bellperson {theirs:.0} ms, ours {ours:.0} ms \
         ({:.2}× faster)",
        theirs / ours
    );
}
