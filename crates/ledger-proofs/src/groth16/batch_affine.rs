//! Pippenger's bucket method with the buckets kept in affine form and added to in batches that
//! share one field inversion (Montgomery's trick): an addition then costs about 5 multiplications
//! and a squaring, where blst's own Pippenger pays 8 and 2 for its XYZZ buckets. Per window:
//!
//! 1. every point whose signed digit is ±k joins bucket k − 1 (negated for −k); an addition to a
//!    bucket already waiting in the current batch goes to that bucket's projective overflow sum;
//! 2. a full batch computes all its slopes with a single inversion;
//! 3. the buckets (and overflows) are summed by the running-sum trick in projective form (blst).
//!
//! The windows are shared out between threads. Field and group arithmetic is blst's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use blst::*;

/// The field of a curve's coordinates, with blst's Montgomery arithmetic.
pub trait Field: Copy + Send + Sync {
    fn one() -> Self;
    fn is_zero(&self) -> bool;
    fn add(&self, other: &Self) -> Self;
    fn sub(&self, other: &Self) -> Self;
    fn mul(&self, other: &Self) -> Self;
    fn sqr(&self) -> Self;
    fn inverse(&self) -> Self;
    fn neg(&self) -> Self;
}

macro_rules! blst_field {
    ($t:ty, $zero:expr, $add:ident, $sub:ident, $mul:ident, $sqr:ident, $inv:ident, $cneg:ident, $one:expr) => {
        impl Field for $t {
            fn one() -> Self {
                $one
            }
            fn is_zero(&self) -> bool {
                // blst keeps elements fully reduced, so zero has the one representation.
                *self == $zero
            }
            fn add(&self, other: &Self) -> Self {
                let mut out = $zero;
                unsafe { $add(&mut out, self, other) };
                out
            }
            fn sub(&self, other: &Self) -> Self {
                let mut out = $zero;
                unsafe { $sub(&mut out, self, other) };
                out
            }
            fn mul(&self, other: &Self) -> Self {
                let mut out = $zero;
                unsafe { $mul(&mut out, self, other) };
                out
            }
            fn sqr(&self) -> Self {
                let mut out = $zero;
                unsafe { $sqr(&mut out, self) };
                out
            }
            fn inverse(&self) -> Self {
                let mut out = $zero;
                unsafe { $inv(&mut out, self) };
                out
            }
            fn neg(&self) -> Self {
                let mut out = $zero;
                unsafe { $cneg(&mut out, self, true) };
                out
            }
        }
    };
}

const FP_ZERO: blst_fp = blst_fp { l: [0; 6] };
const FP2_ZERO: blst_fp2 = blst_fp2 { fp: [FP_ZERO; 2] };

fn fp_one() -> blst_fp {
    let mut one = FP_ZERO;
    // Converts the integer 1 into Montgomery form.
    unsafe { blst_fp_from_uint64(&mut one, [1u64, 0, 0, 0, 0, 0].as_ptr()) };
    one
}

blst_field!(
    blst_fp,
    FP_ZERO,
    blst_fp_add,
    blst_fp_sub,
    blst_fp_mul,
    blst_fp_sqr,
    // Variable time: the bucket method's memory accesses already depend on the scalars.
    blst_fp_eucl_inverse,
    blst_fp_cneg,
    fp_one()
);
blst_field!(
    blst_fp2,
    FP2_ZERO,
    blst_fp2_add,
    blst_fp2_sub,
    blst_fp2_mul,
    blst_fp2_sqr,
    blst_fp2_eucl_inverse,
    blst_fp2_cneg,
    blst_fp2 {
        fp: [fp_one(), FP_ZERO]
    }
);

/// A curve as blst has it: affine points `(x, y)` over `Field`, (0, 0) being the identity, and
/// projective points for the sums.
pub trait Curve {
    type F: Field;
    type Affine: Copy + Send + Sync;
    type Projective: Copy + Send;
    fn xy(point: &Self::Affine) -> (&Self::F, &Self::F);
    fn from_xy(x: Self::F, y: Self::F) -> Self::Affine;
    fn is_identity(point: &Self::Affine) -> bool;
    fn identity() -> Self::Projective;
    fn add_affine(sum: &mut Self::Projective, point: &Self::Affine);
    fn add(sum: &mut Self::Projective, other: &Self::Projective);
    fn double(sum: &mut Self::Projective);
    fn to_affine(point: &Self::Projective) -> Self::Affine;
}

macro_rules! blst_curve {
    ($name:ident, $f:ty, $affine:ty, $proj:ty, $add_aff:ident, $add:ident, $dbl:ident, $to_aff:ident, $is_inf:ident) => {
        pub struct $name;
        impl Curve for $name {
            type F = $f;
            type Affine = $affine;
            type Projective = $proj;
            fn xy(point: &$affine) -> (&$f, &$f) {
                (&point.x, &point.y)
            }
            fn from_xy(x: $f, y: $f) -> $affine {
                <$affine>::from_xy(x, y)
            }
            fn is_identity(point: &$affine) -> bool {
                unsafe { $is_inf(point) }
            }
            fn identity() -> $proj {
                <$proj>::default()
            }
            fn add_affine(sum: &mut $proj, point: &$affine) {
                let copy = *sum;
                unsafe { $add_aff(sum, &copy, point) };
            }
            fn add(sum: &mut $proj, other: &$proj) {
                let copy = *sum;
                unsafe { $add(sum, &copy, other) };
            }
            fn double(sum: &mut $proj) {
                let copy = *sum;
                unsafe { $dbl(sum, &copy) };
            }
            fn to_affine(point: &$proj) -> $affine {
                let mut out = <$affine>::default();
                unsafe { $to_aff(&mut out, point) };
                out
            }
        }
    };
}

trait FromXy<F> {
    fn from_xy(x: F, y: F) -> Self;
}
impl FromXy<blst_fp> for blst_p1_affine {
    fn from_xy(x: blst_fp, y: blst_fp) -> Self {
        blst_p1_affine { x, y }
    }
}
impl FromXy<blst_fp2> for blst_p2_affine {
    fn from_xy(x: blst_fp2, y: blst_fp2) -> Self {
        blst_p2_affine { x, y }
    }
}

blst_curve!(
    G1,
    blst_fp,
    blst_p1_affine,
    blst_p1,
    blst_p1_add_or_double_affine,
    blst_p1_add_or_double,
    blst_p1_double,
    blst_p1_to_affine,
    blst_p1_affine_is_inf
);
blst_curve!(
    G2,
    blst_fp2,
    blst_p2_affine,
    blst_p2,
    blst_p2_add_or_double_affine,
    blst_p2_add_or_double,
    blst_p2_double,
    blst_p2_to_affine,
    blst_p2_affine_is_inf
);

/// Window width in bits for `n` points: the accumulation costs n additions per window and the
/// bucket sums 2^c projective additions; 12 measured best on the winning PoSt's G2 query (66,792
/// points), 11 and 13 within noise of it.
fn window_bits(n: usize) -> usize {
    match n {
        0..=2_047 => 8,
        2_048..=16_383 => 10,
        _ => 12,
    }
}

/// Signed base-2^c digits of each scalar, window-major: `digits[w * n + i]` is scalar i's digit in
/// window w, in [−2^(c−1), 2^(c−1)]. Identity points get only zero digits (they add nothing).
/// Also returns each window's largest |digit|: the buckets it uses.
fn signed_digits(scalars_le: &[u8], skip: &[bool], c: usize, windows: usize) -> (Vec<i16>, Vec<usize>) {
    let n = skip.len();
    let mut digits = vec![0i16; n * windows];
    let mut used = vec![0usize; windows];
    let half = 1i32 << (c - 1);
    let mask = (1u64 << c) - 1;
    for (i, scalar) in scalars_le.chunks_exact(32).enumerate() {
        if skip[i] {
            continue;
        }
        let mut limbs = [0u64; 5];
        for (limb, bytes) in limbs.iter_mut().zip(scalar.chunks_exact(8)) {
            *limb = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        }
        let mut carry = 0i32;
        for w in 0..windows {
            let bit = w * c;
            let (limb, shift) = (bit / 64, bit % 64);
            let mut raw = if limb < 4 { limbs[limb] >> shift } else { 0 };
            if shift > 0 && limb + 1 < 5 {
                raw |= limbs[limb + 1] << (64 - shift);
            }
            let value = (raw & mask) as i32 + carry;
            let digit = if value > half { value - (1 << c) } else { value };
            carry = i32::from(value > half);
            digits[w * n + i] = digit as i16;
            used[w] = used[w].max(digit.unsigned_abs() as usize);
        }
    }
    (digits, used)
}

/// One window's buckets and the batch of additions waiting for their shared inversion.
struct Window<C: Curve> {
    buckets: Vec<C::Affine>,
    /// 0: empty, 1: holds a point, 2: holds a point and has an addition in the batch.
    state: Vec<u8>,
    /// Additions to a bucket already in the batch, summed in projective form instead of waiting:
    /// a window with few buckets in use (the top one) would otherwise queue nearly every point.
    overflow: Vec<C::Projective>,
    has_overflow: Vec<bool>,
    batch: Vec<(u32, C::Affine)>,
    /// Each batch entry's slope denominator, and the product of those before it.
    dx: Vec<C::F>,
    prefix: Vec<C::F>,
    batch_size: usize,
}

impl<C: Curve> Window<C> {
    fn new(buckets: usize) -> Self {
        let placeholder = C::from_xy(C::F::one(), C::F::one());
        Window {
            buckets: vec![placeholder; buckets],
            state: vec![0; buckets],
            overflow: vec![C::identity(); buckets],
            has_overflow: vec![false; buckets],
            batch: Vec::new(),
            dx: Vec::new(),
            prefix: Vec::new(),
            batch_size: 1,
        }
    }

    /// Empties the buckets for a window whose digits reach ±`used`.
    fn reset(&mut self, used: usize) {
        self.state[..used].iter_mut().for_each(|s| *s = 0);
        self.has_overflow[..used].iter_mut().for_each(|o| *o = false);
        // A batch fills only while its buckets are distinct: size it to the buckets in use.
        // An eighth: fewer additions land on a bucket already in the batch (they cost a projective
        // addition), and one inversion still serves hundreds (measured by benches/msm_compare).
        self.batch_size = (used / 8).clamp(16, 1024);
    }

    fn push(&mut self, bucket: u32, point: C::Affine) {
        let b = bucket as usize;
        match self.state[b] {
            0 => {
                self.buckets[b] = point;
                self.state[b] = 1;
            }
            1 => {
                self.state[b] = 2;
                self.batch.push((bucket, point));
                if self.batch.len() == self.batch_size {
                    self.flush();
                }
            }
            _ => {
                if !self.has_overflow[b] {
                    self.overflow[b] = C::identity();
                    self.has_overflow[b] = true;
                }
                C::add_affine(&mut self.overflow[b], &point);
            }
        }
    }

    /// Adds the batch into its buckets.
    fn flush(&mut self) {
        self.dx.clear();
        self.prefix.clear();
        let mut product = C::F::one();
        for (bucket, point) in &self.batch {
            let (bx, _) = C::xy(&self.buckets[*bucket as usize]);
            let (px, _) = C::xy(point);
            let dx = px.sub(bx);
            self.prefix.push(product);
            // x equal: a doubling or a cancellation, done apart below (the product skips it).
            if !dx.is_zero() {
                product = product.mul(&dx);
            }
            self.dx.push(dx);
        }
        let mut inverse = product.inverse();
        for k in (0..self.batch.len()).rev() {
            let (bucket, point) = self.batch[k];
            let b = bucket as usize;
            let (bx, by) = C::xy(&self.buckets[b]);
            let (px, py) = C::xy(&point);
            let dx = self.dx[k];
            if dx.is_zero() {
                let mut sum = C::identity();
                C::add_affine(&mut sum, &self.buckets[b]);
                C::add_affine(&mut sum, &point);
                let sum = C::to_affine(&sum);
                if C::is_identity(&sum) {
                    self.state[b] = 0;
                } else {
                    self.buckets[b] = sum;
                    self.state[b] = 1;
                }
                continue;
            }
            let dx_inverse = inverse.mul(&self.prefix[k]);
            inverse = inverse.mul(&dx);
            let slope = py.sub(by).mul(&dx_inverse);
            let x = slope.sqr().sub(bx).sub(px);
            let y = slope.mul(&bx.sub(&x)).sub(by);
            self.buckets[b] = C::from_xy(x, y);
            self.state[b] = 1;
        }
        self.batch.clear();
    }

    /// Σ (k + 1)·bucket[k] over the first `used` buckets, by running sums.
    fn sum(&mut self, used: usize) -> C::Projective {
        if !self.batch.is_empty() {
            self.flush();
        }
        let mut running = C::identity();
        let mut total = C::identity();
        for b in (0..used).rev() {
            if self.state[b] != 0 {
                C::add_affine(&mut running, &self.buckets[b]);
            }
            if self.has_overflow[b] {
                C::add(&mut running, &self.overflow[b]);
            }
            C::add(&mut total, &running);
        }
        total
    }
}

/// Σ scalars[i]·points[i] for 32-byte little-endian scalars below the group order.
pub fn msm<C: Curve>(points: &[C::Affine], scalars_le: &[u8]) -> C::Projective {
    let n = points.len();
    assert_eq!(scalars_le.len(), n * 32, "one 32-byte scalar per point");
    if n == 0 {
        return C::identity();
    }
    let c = window_bits(n);
    // 255-bit scalars plus the carry out of the top signed digit.
    let windows = (255 + c) / c;
    let skip: Vec<bool> = points.iter().map(C::is_identity).collect();
    let (digits, used) = signed_digits(scalars_le, &skip, c, windows);
    let buckets = 1usize << (c - 1);

    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(windows);
    let next = AtomicUsize::new(0);
    let sums: Mutex<Vec<Option<C::Projective>>> = Mutex::new(vec![None; windows]);
    let work = || {
        let mut window = Window::<C>::new(buckets);
        loop {
            let w = next.fetch_add(1, Ordering::Relaxed);
            if w >= windows {
                break;
            }
            window.reset(used[w]);
            for (point, &digit) in points.iter().zip(&digits[w * n..(w + 1) * n]) {
                if digit == 0 {
                    continue;
                }
                let bucket = u32::from(digit.unsigned_abs()) - 1;
                let signed = if digit > 0 {
                    *point
                } else {
                    let (x, y) = C::xy(point);
                    C::from_xy(*x, y.neg())
                };
                window.push(bucket, signed);
            }
            let sum = window.sum(used[w]);
            sums.lock().unwrap_or_else(|e| e.into_inner())[w] = Some(sum);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });

    let sums = sums.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut total = C::identity();
    for sum in sums.iter().rev() {
        for _ in 0..c {
            C::double(&mut total);
        }
        C::add(&mut total, sum.as_ref().expect("every window was summed"));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use blst::MultiPoint;
    use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
    use ff::Field as _;
    use group::prime::PrimeCurveAffine;
    use group::{Curve as _, Group};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn scalar_bytes(scalars: &[Scalar]) -> Vec<u8> {
        scalars.iter().flat_map(|s| s.to_bytes_le()).collect()
    }

    fn g1s(points: &[G1Affine]) -> &[blst_p1_affine] {
        unsafe { std::slice::from_raw_parts(points.as_ptr().cast(), points.len()) }
    }

    fn g2s(points: &[G2Affine]) -> &[blst_p2_affine] {
        unsafe { std::slice::from_raw_parts(points.as_ptr().cast(), points.len()) }
    }

    fn same_g1(a: blst_p1, b: blst_p1) -> bool {
        unsafe { blst_p1_is_equal(&a, &b) }
    }

    fn same_g2(a: blst_p2, b: blst_p2) -> bool {
        unsafe { blst_p2_is_equal(&a, &b) }
    }

    #[test]
    fn agrees_with_blst_pippenger_on_random_inputs() {
        let mut rng = ChaCha20Rng::from_seed([3; 32]);
        // Sizes on both sides of each window width, and one that fills many batches.
        for n in [1, 2, 7, 100, 2_048, 20_000] {
            let g1: Vec<G1Affine> = (0..n).map(|_| G1Projective::random(&mut rng).to_affine()).collect();
            let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut rng)).collect();
            let bytes = scalar_bytes(&s);
            assert!(
                same_g1(msm::<G1>(g1s(&g1), &bytes), g1s(&g1).mult(&bytes, 255)),
                "G1, n = {n}"
            );
            if n <= 2_048 {
                let g2: Vec<G2Affine> = (0..n).map(|_| G2Projective::random(&mut rng).to_affine()).collect();
                assert!(
                    same_g2(msm::<G2>(g2s(&g2), &bytes), g2s(&g2).mult(&bytes, 255)),
                    "G2, n = {n}"
                );
            }
        }
    }

    #[test]
    fn handles_repeated_and_opposite_points_and_the_identity() {
        // Equal x coordinates in one bucket: doublings (P + P) and cancellations (P + −P), which
        // the batched slope formula cannot do; extreme scalars (0, 1, −1) and identity points.
        let mut rng = ChaCha20Rng::from_seed([4; 32]);
        let p = G1Projective::random(&mut rng).to_affine();
        let q = G2Projective::random(&mut rng).to_affine();
        let n = 3_000;
        let minus_one = -Scalar::ONE;
        let s: Vec<Scalar> = (0..n)
            .map(|i| match i % 5 {
                0 => Scalar::from(7u64),
                1 => minus_one,
                2 => Scalar::ZERO,
                3 => Scalar::ONE,
                _ => -Scalar::from(7u64),
            })
            .collect();
        let g1: Vec<G1Affine> = (0..n)
            .map(|i| {
                if i % 11 == 0 {
                    G1Affine::identity()
                } else if i % 2 == 0 {
                    p
                } else {
                    -p
                }
            })
            .collect();
        let g2: Vec<G2Affine> = (0..n)
            .map(|i| {
                if i % 11 == 0 {
                    G2Affine::identity()
                } else if i % 2 == 0 {
                    q
                } else {
                    -q
                }
            })
            .collect();
        let bytes = scalar_bytes(&s);
        let expected_g1 = g1
            .iter()
            .zip(&s)
            .fold(G1Projective::identity(), |acc, (p, s)| acc + *p * *s);
        let expected_g2 = g2
            .iter()
            .zip(&s)
            .fold(G2Projective::identity(), |acc, (p, s)| acc + *p * *s);
        let got_g1: G1Projective = unsafe { std::mem::transmute(msm::<G1>(g1s(&g1), &bytes)) };
        let got_g2: G2Projective = unsafe { std::mem::transmute(msm::<G2>(g2s(&g2), &bytes)) };
        assert_eq!(got_g1, expected_g1);
        assert_eq!(got_g2, expected_g2);
        // A sum that cancels out entirely.
        let cancel = scalar_bytes(&[Scalar::ONE, Scalar::ONE]);
        let opposite = [p, -p];
        assert!(bool::from(
            unsafe { std::mem::transmute::<blst_p1, G1Projective>(msm::<G1>(g1s(&opposite), &cancel)) }.is_identity()
        ));
    }
}
