//! Multi-scalar multiplication over the proving key's fixed points with blst's Pippenger in G1
//! (about 1.5× faster than bellperson's CPU bucket method on the winning PoSt H query) and our
//! batch-affine one in G2 (`batch_affine`), both measured by `benches/msm_compare.rs`. Scalars 0 and 1 are taken out first (nothing, or one addition,
//! instead of a pass over every window); in the PoSt circuits they are under 1% of the witness.

use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, MultiPoint};

use super::batch_affine;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::Group;

/// A curve whose affine points blst can multi-multiply.
pub trait Msm: Copy + Send + Sync {
    type Curve: Group + for<'a> std::ops::AddAssign<&'a Self>;
    fn pippenger(points: &[Self], scalars_le: &[u8]) -> Self::Curve;
}

impl Msm for G1Affine {
    type Curve = G1Projective;
    fn pippenger(points: &[Self], scalars_le: &[u8]) -> G1Projective {
        // SAFETY: G1Affine is a transparent wrapper of blst_p1_affine, G1Projective of blst_p1.
        let points = unsafe { std::slice::from_raw_parts(points.as_ptr().cast::<blst_p1_affine>(), points.len()) };
        let sum: blst_p1 = points.mult(scalars_le, 255);
        unsafe { std::mem::transmute::<blst_p1, G1Projective>(sum) }
    }
}

/// From this many points on, G2 sums use our batch-affine Pippenger: 1.2× blst's on the winning
/// PoSt's B query (benches/msm_compare). In G1, where a field multiplication is a third of G2's,
/// the saving is eaten by the batch bookkeeping: the two measured level, so G1 stays with blst.
const G2_BATCH_AFFINE_FROM: usize = 4_096;

impl Msm for G2Affine {
    type Curve = G2Projective;
    fn pippenger(points: &[Self], scalars_le: &[u8]) -> G2Projective {
        // SAFETY: G2Affine is a transparent wrapper of blst_p2_affine, G2Projective of blst_p2.
        let points = unsafe { std::slice::from_raw_parts(points.as_ptr().cast::<blst_p2_affine>(), points.len()) };
        let sum: blst_p2 = if points.len() >= G2_BATCH_AFFINE_FROM {
            batch_affine::msm::<batch_affine::G2>(points, scalars_le)
        } else {
            points.mult(scalars_le, 255)
        };
        unsafe { std::mem::transmute::<blst_p2, G2Projective>(sum) }
    }
}

/// Σ scalars[i]·points[i]; the caller has matched the lengths.
pub fn msm<P: Msm>(points: &[P], scalars: &[Scalar]) -> P::Curve {
    debug_assert_eq!(points.len(), scalars.len());
    let mut ones = P::Curve::identity();
    let mut ones_count = 0usize;
    let mut rest_points = Vec::with_capacity(points.len());
    let mut rest_scalars = Vec::with_capacity(points.len() * 32);
    for (point, scalar) in points.iter().zip(scalars) {
        if bool::from(scalar.is_zero()) {
            continue;
        }
        if *scalar == Scalar::ONE {
            ones += point;
            ones_count += 1;
        } else {
            rest_points.push(*point);
            rest_scalars.extend_from_slice(&scalar.to_bytes_le());
        }
    }
    log::debug!(
        "msm over {} points: {} zero, {} one, {} full scalars",
        points.len(),
        points.len() - rest_points.len() - ones_count,
        ones_count,
        rest_points.len()
    );
    if rest_points.is_empty() {
        return ones;
    }
    ones + P::pippenger(&rest_points, &rest_scalars)
}

/// The scalars a density keeps (the key holds points only for those).
pub fn select(scalars: &[Scalar], density: &[bool]) -> Vec<Scalar> {
    scalars
        .iter()
        .zip(density)
        .filter_map(|(scalar, &used)| used.then_some(*scalar))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::Curve;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn naive<P>(points: &[P], scalars: &[Scalar]) -> P::Curve
    where
        P: Msm + std::ops::Mul<Scalar, Output = P::Curve>,
    {
        points
            .iter()
            .zip(scalars)
            .fold(P::Curve::identity(), |acc, (p, s)| acc + (*p * *s))
    }

    fn scalars(rng: &mut ChaCha20Rng, n: usize) -> Vec<Scalar> {
        // A mix like a witness: zeros, ones and full field elements.
        (0..n)
            .map(|i| match i % 3 {
                0 => Scalar::ZERO,
                1 => Scalar::ONE,
                _ => Scalar::random(&mut *rng),
            })
            .collect()
    }

    #[test]
    fn agrees_with_the_naive_sum_in_both_groups() {
        let mut rng = ChaCha20Rng::from_seed([9; 32]);
        for n in [1, 2, 3, 40, 300] {
            let g1: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let g2: Vec<G2Affine> = (0..n).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
            let s = scalars(&mut rng, n);
            assert_eq!(msm(&g1, &s), naive(&g1, &s), "G1, n = {n}");
            assert_eq!(msm(&g2, &s), naive(&g2, &s), "G2, n = {n}");
        }
        assert_eq!(msm::<G1Affine>(&[], &[]), G1Projective::identity());
    }

    #[test]
    fn select_keeps_the_dense_scalars_in_order() {
        let s = [Scalar::from(1u64), Scalar::from(2u64), Scalar::from(3u64)];
        assert_eq!(select(&s, &[true, false, true]), vec![s[0], s[2]]);
    }
}
