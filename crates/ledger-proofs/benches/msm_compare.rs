use std::sync::Arc;
use std::time::Instant;

use bellperson::groth16::Parameters;
use blst::MultiPoint;
use blstrs::{Bls12, G1Affine, Scalar};
use ec_gpu_gen::multiexp_cpu::{multiexp_cpu, FullDensity};
use ec_gpu_gen::threadpool::Worker;
use ff::{Field, PrimeField};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn main() {
    let path = std::env::args().filter(|a| a != "--bench").nth(1).expect("params path");
    let t = Instant::now();
    let params =
        Parameters::<Bls12>::read(std::fs::File::open(&path).map(std::io::BufReader::new).unwrap(), false).unwrap();
    eprintln!("read params {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let h: Arc<Vec<G1Affine>> = params.h.clone();
    let n = h.len();
    let mut rng = ChaCha20Rng::from_seed([1; 32]);
    let scalars: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
    let reprs = Arc::new(scalars.iter().map(|s| s.to_repr()).collect::<Vec<_>>());
    let worker = Worker::new();
    for _ in 0..2 {
        let t = Instant::now();
        let a = multiexp_cpu::<_, _, G1Affine, _>(&worker, (h.clone(), 0), FullDensity, reprs.clone())
            .wait()
            .unwrap();
        eprintln!(
            "ec-gpu-gen multiexp_cpu n={n}: {:.0} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
        let t = Instant::now();
        let points: &[blst::blst_p1_affine] =
            unsafe { std::slice::from_raw_parts(h.as_ptr() as *const blst::blst_p1_affine, n) };
        let mut bytes = Vec::with_capacity(n * 32);
        for s in &scalars {
            bytes.extend_from_slice(&s.to_bytes_le());
        }
        let b = points.mult(&bytes, 255);
        eprintln!("blst pippenger n={n}: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
        let b: blstrs::G1Projective = unsafe { std::mem::transmute(b) };
        assert_eq!(a, b, "same MSM");
    }
}
