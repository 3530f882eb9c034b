//! A Groth16 prover for bellperson proving keys that keeps the key in memory and does the
//! multi-scalar multiplications with blst (see `msm`). Same algebra as bellperson's CPU prover:
//! synthesize, H through FFTs over the evaluation domain (`fft`), then the five queries.

use bellperson::groth16::{Parameters, Proof};
use bellperson::{Circuit, ConstraintSystem, Index, SynthesisError, Variable};
use blstrs::{Bls12, G1Projective, G2Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Curve;
use std::time::Instant;

use super::assignment::Assignment;
use super::fft;
use super::msm::{msm, select};

/// Why a proof could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    #[error("circuit synthesis failed: {0}")]
    Synthesis(#[from] SynthesisError),
    #[error(
        "the proving key does not fit this circuit: its {query} query has {have} points, the circuit needs {need}"
    )]
    KeyMismatch {
        query: &'static str,
        have: usize,
        need: usize,
    },
    #[error("the proving key's delta is the identity (a subverted key)")]
    SubvertedKey,
}

/// `all[from..from + need]`, which must end the query: a key made for another circuit fails here.
fn points<'a, P>(query: &'static str, all: &'a [P], from: usize, need: usize) -> Result<&'a [P], ProveError> {
    match all.get(from..) {
        Some(rest) if rest.len() == need => Ok(rest),
        _ => Err(ProveError::KeyMismatch {
            query,
            have: all.len(),
            need: from + need,
        }),
    }
}

/// The first `need` points of a query (its input part).
fn head<'a, P>(query: &'static str, all: &'a [P], need: usize) -> Result<&'a [P], ProveError> {
    all.get(..need).ok_or(ProveError::KeyMismatch {
        query,
        have: all.len(),
        need,
    })
}

/// A proof of `circuit` under `params`, blinded with `r` and `s` (random and secret).
pub fn prove<C: Circuit<Scalar>>(
    circuit: C,
    params: &Parameters<Bls12>,
    r: Scalar,
    s: Scalar,
) -> Result<Proof<Bls12>, ProveError> {
    let vk = &params.vk;
    if bool::from(vk.delta_g1.is_identity() | vk.delta_g2.is_identity()) {
        return Err(ProveError::SubvertedKey);
    }

    let started = Instant::now();
    let step = |name: &str| log::debug!("groth16 {name}: {:.0} ms", started.elapsed().as_secs_f64() * 1e3);
    let mut cs = Assignment::new();
    cs.alloc_input(|| "", || Ok(Scalar::ONE))?;
    circuit.synthesize(&mut cs)?;
    // Inputs × 0 = 0 keeps the inputs independent in the QAP (the key was made with them too).
    for i in 0..cs.inputs.len() {
        cs.enforce(
            || "",
            |lc| lc + Variable::new_unchecked(Index::Input(i)),
            |lc| lc,
            |lc| lc,
        );
    }

    step("synthesis");
    let h_scalars = fft::h_coefficients(
        std::mem::take(&mut cs.a),
        std::mem::take(&mut cs.b),
        std::mem::take(&mut cs.c),
    );
    step("fft");
    let h = msm(points("h", &params.h, 0, h_scalars.len())?, &h_scalars);
    step("msm h");
    let l = msm(points("l", &params.l, 0, cs.aux.len())?, &cs.aux);
    step("msm l");

    let a_aux = select(&cs.aux, &cs.a_aux_density);
    let a_answer = msm(head("a", &params.a, cs.inputs.len())?, &cs.inputs)
        + msm(points("a", &params.a, cs.inputs.len(), a_aux.len())?, &a_aux);

    step("msm a");
    let b_inputs = select(&cs.inputs, &cs.b_input_density);
    let b_aux = select(&cs.aux, &cs.b_aux_density);
    let b1_answer = msm(head("b_g1", &params.b_g1, b_inputs.len())?, &b_inputs)
        + msm(points("b_g1", &params.b_g1, b_inputs.len(), b_aux.len())?, &b_aux);
    step("msm b_g1");
    let b2_answer = msm(head("b_g2", &params.b_g2, b_inputs.len())?, &b_inputs)
        + msm(points("b_g2", &params.b_g2, b_inputs.len(), b_aux.len())?, &b_aux);

    step("msm b_g2");
    let delta_g1 = G1Projective::from(vk.delta_g1);
    let g_a = delta_g1 * r + vk.alpha_g1 + a_answer;
    let g_b = G2Projective::from(vk.delta_g2) * s + vk.beta_g2 + b2_answer;
    let g_c = a_answer * s
        + b1_answer * r
        + delta_g1 * (r * s)
        + G1Projective::from(vk.alpha_g1) * s
        + G1Projective::from(vk.beta_g1) * r
        + h
        + l;
    Ok(Proof {
        a: g_a.to_affine(),
        b: g_b.to_affine(),
        c: g_c.to_affine(),
    })
}

/// `prove` with fresh blinding factors.
pub fn prove_random<C: Circuit<Scalar>>(
    circuit: C,
    params: &Parameters<Bls12>,
    rng: &mut impl rand_core::RngCore,
) -> Result<Proof<Bls12>, ProveError> {
    let r = Scalar::random(&mut *rng);
    let s = Scalar::random(&mut *rng);
    prove(circuit, params, r, s)
}
