//! The quotient polynomial H = (A·B − C) / Z of a Groth16 proof, by FFTs over the constraint
//! domain: the same arithmetic as bellperson's `EvaluationDomain` (same ω, coset generator and
//! scaling, so the same H), with less work. The twiddles and the coset scalings are tables made
//! once per domain size instead of powers recomputed in every butterfly, scalings are fused into
//! single passes, and the FFT splits over threads without bellperson's extra pass over the input
//! (about 2× less time on the winning PoSt's 2^17 domain, `benches/winning_post_phases`).

use std::sync::{Arc, Mutex};

use blstrs::Scalar;
use ff::{Field, PrimeField};
use rayon::prelude::*;

/// What the FFTs over a domain of 2^log_n points need, made once per size.
struct DomainTables {
    /// ω^i and ω^−i for i < n/2 (ω a primitive n-th root of unity, as bellperson picks it).
    twiddles: Vec<Scalar>,
    inverse_twiddles: Vec<Scalar>,
    /// g^i / n: an inverse FFT's scaling, then the shift onto the coset g·⟨ω⟩.
    to_coset: Vec<Scalar>,
    /// g^−i / n: an inverse FFT's scaling, then the shift back from the coset.
    from_coset: Vec<Scalar>,
    /// 1 / Z(g) = 1 / (g^n − 1): Z is constant on the coset.
    z_inverse: Scalar,
}

static TABLES: Mutex<Vec<(u32, Arc<DomainTables>)>> = Mutex::new(Vec::new());

fn powers(base: Scalar, first: Scalar, count: usize) -> Vec<Scalar> {
    // In chunks from a power computed directly, so the table fills in parallel.
    const CHUNK: usize = 4096;
    let mut out = vec![Scalar::ZERO; count];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, chunk)| {
        let mut power = first * base.pow_vartime([(c * CHUNK) as u64]);
        for value in chunk {
            *value = power;
            power *= base;
        }
    });
    out
}

fn tables(log_n: u32) -> Arc<DomainTables> {
    let mut cache = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, tables)) = cache.iter().find(|(size, _)| *size == log_n) {
        return tables.clone();
    }
    let n = 1usize << log_n;
    let mut omega = Scalar::ROOT_OF_UNITY;
    for _ in log_n..Scalar::S {
        omega = omega.square();
    }
    let g = Scalar::MULTIPLICATIVE_GENERATOR;
    let n_inverse = Scalar::from(n as u64).invert().unwrap();
    let tables = Arc::new(DomainTables {
        twiddles: powers(omega, Scalar::ONE, n / 2),
        inverse_twiddles: powers(omega.invert().unwrap(), Scalar::ONE, n / 2),
        to_coset: powers(g, n_inverse, n),
        from_coset: powers(g.invert().unwrap(), n_inverse, n),
        z_inverse: (g.pow_vartime([n as u64]) - Scalar::ONE).invert().unwrap(),
    });
    cache.push((log_n, tables.clone()));
    tables
}

/// One radix-2 stage on `chunk` (a whole number of butterfly groups of size `m`) of a size-`n` FFT.
fn stage(chunk: &mut [Scalar], m: usize, twiddles: &[Scalar], n: usize) {
    let half = m / 2;
    let stride = n / m;
    for group in chunk.chunks_mut(m) {
        let (low, high) = group.split_at_mut(half);
        if half == 1 {
            // The twiddle is 1.
            let t = high[0];
            high[0] = low[0] - t;
            low[0] += t;
            continue;
        }
        for (j, (l, h)) in low.iter_mut().zip(high.iter_mut()).enumerate() {
            let t = *h * twiddles[j * stride];
            *h = *l - t;
            *l += t;
        }
    }
}

/// In-place FFT (decimation in time): values at ω^i of the polynomial with coefficients `a`, or
/// with the inverse twiddles, n times the coefficients of the polynomial with values `a`.
fn fft(a: &mut [Scalar], twiddles: &[Scalar]) {
    let n = a.len();
    let log_n = n.trailing_zeros();
    if n <= 1 {
        return;
    }
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - log_n);
        if i < j {
            a.swap(i, j);
        }
    }
    // Stages up to the block size stay inside blocks: blocks go to threads whole. The later
    // stages split each butterfly group's pairs between threads instead.
    let pieces = (4 * rayon::current_num_threads()).next_power_of_two();
    let block = (n / pieces).max(2);
    a.par_chunks_mut(block).for_each(|chunk| {
        let mut m = 2;
        while m <= chunk.len() {
            stage(chunk, m, twiddles, n);
            m *= 2;
        }
    });
    let mut m = block * 2;
    while m <= n {
        let half = m / 2;
        let stride = n / m;
        let piece = (half / pieces).max(1024);
        for group in a.chunks_mut(m) {
            let (low, high) = group.split_at_mut(half);
            low.par_chunks_mut(piece)
                .zip(high.par_chunks_mut(piece))
                .enumerate()
                .for_each(|(p, (low, high))| {
                    for (j, (l, h)) in low.iter_mut().zip(high.iter_mut()).enumerate() {
                        let t = *h * twiddles[(p * piece + j) * stride];
                        *h = *l - t;
                        *l += t;
                    }
                });
        }
        m *= 2;
    }
}

fn scale(a: &mut [Scalar], factors: &[Scalar]) {
    a.par_iter_mut().zip(factors.par_iter()).for_each(|(v, f)| *v *= f);
}

/// The first m − 1 coefficients of H = (A·B − C) / Z, from A, B and C evaluated on the constraint
/// domain (m is the smallest power of two holding them; shorter inputs are zero-padded).
pub fn h_coefficients(mut a: Vec<Scalar>, mut b: Vec<Scalar>, mut c: Vec<Scalar>) -> Vec<Scalar> {
    let m = a.len().max(b.len()).max(c.len()).next_power_of_two();
    let tables = tables(m.trailing_zeros());
    for p in [&mut a, &mut b, &mut c] {
        p.resize(m, Scalar::ZERO);
        // Coefficients, then values on the coset g·⟨ω⟩.
        fft(p, &tables.inverse_twiddles);
        scale(p, &tables.to_coset);
        fft(p, &tables.twiddles);
    }
    let z_inverse = tables.z_inverse;
    a.par_iter_mut()
        .zip(b.par_iter())
        .zip(c.par_iter())
        .for_each(|((a, b), c)| *a = (*a * b - c) * z_inverse);
    drop((b, c));
    fft(&mut a, &tables.inverse_twiddles);
    scale(&mut a, &tables.from_coset);
    a.pop();
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use bellperson::domain::EvaluationDomain;
    use bellperson::gpu::LockedFftKernel;
    use ec_gpu_gen::threadpool::Worker;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// bellperson's own H, as its CPU prover computes it.
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

    #[test]
    fn equals_bellperson_on_random_evaluations() {
        let mut rng = ChaCha20Rng::from_seed([5; 32]);
        // Powers of two and not (padded), tiny and past the block split, the winning PoSt's 2^17.
        for n in [1, 2, 3, 4, 5, 64, 1_000, 4_096, 70_000] {
            let mut random = |len: usize| (0..len).map(|_| Scalar::random(&mut rng)).collect::<Vec<_>>();
            let (a, b, c) = (random(n), random(n), random(n));
            let ours = h_coefficients(a.clone(), b.clone(), c.clone());
            assert_eq!(ours, bellperson_h(a, b, c), "n = {n}");
        }
    }

    #[test]
    fn a_forward_then_inverse_fft_is_n_times_the_identity() {
        let mut rng = ChaCha20Rng::from_seed([6; 32]);
        let n = 1 << 12;
        let original: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
        let tables = tables(12);
        let mut values = original.clone();
        fft(&mut values, &tables.twiddles);
        assert_ne!(values, original);
        fft(&mut values, &tables.inverse_twiddles);
        let n_scalar = Scalar::from(n as u64);
        assert!(values.iter().zip(&original).all(|(v, o)| *v == *o * n_scalar));
    }
}
