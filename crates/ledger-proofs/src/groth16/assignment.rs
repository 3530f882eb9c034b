//! The witness side of a circuit: a constraint system that evaluates every constraint's A, B and C
//! on the assignment and records which variables the A and B queries use. It follows bellperson's
//! own prover bookkeeping exactly (same variable order, same density rules), so the proving key's
//! queries line up with it.

use bellperson::{ConstraintSystem, Index, LinearCombination, SynthesisError, Variable};
use blstrs::Scalar;
use ff::Field;

#[derive(Default)]
pub struct Assignment {
    /// A, B and C of each constraint, evaluated on the assignment.
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
    /// Which aux variables appear in some A (inputs always do, through the `x * 0 = 0` constraints).
    pub a_aux_density: Vec<bool>,
    /// Which inputs and aux variables appear in some B.
    pub b_input_density: Vec<bool>,
    pub b_aux_density: Vec<bool>,
}

/// `lc` on the assignment, marking the variables it uses with a non-zero coefficient.
fn eval(
    lc: &LinearCombination<Scalar>,
    mut input_density: Option<&mut Vec<bool>>,
    mut aux_density: Option<&mut Vec<bool>>,
    inputs: &[Scalar],
    aux: &[Scalar],
) -> Scalar {
    let mut acc = Scalar::ZERO;
    let mut add = |value: Scalar, coeff: &Scalar| {
        acc += if *coeff == Scalar::ONE { value } else { value * coeff };
    };
    for (&index, coeff) in lc.iter_inputs() {
        if !bool::from(coeff.is_zero()) {
            add(inputs[index], coeff);
            if let Some(density) = input_density.as_deref_mut() {
                density[index] = true;
            }
        }
    }
    for (&index, coeff) in lc.iter_aux() {
        if !bool::from(coeff.is_zero()) {
            add(aux[index], coeff);
            if let Some(density) = aux_density.as_deref_mut() {
                density[index] = true;
            }
        }
    }
    acc
}

impl ConstraintSystem<Scalar> for Assignment {
    type Root = Self;

    fn new() -> Self {
        Self::default()
    }

    fn alloc<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.aux.push(f()?);
        self.a_aux_density.push(false);
        self.b_aux_density.push(false);
        Ok(Variable::new_unchecked(Index::Aux(self.aux.len() - 1)))
    }

    fn alloc_input<F, A, AR>(&mut self, _: A, f: F) -> Result<Variable, SynthesisError>
    where
        F: FnOnce() -> Result<Scalar, SynthesisError>,
        A: FnOnce() -> AR,
        AR: Into<String>,
    {
        self.inputs.push(f()?);
        self.b_input_density.push(false);
        Ok(Variable::new_unchecked(Index::Input(self.inputs.len() - 1)))
    }

    fn enforce<A, AR, LA, LB, LC>(&mut self, _: A, a: LA, b: LB, c: LC)
    where
        A: FnOnce() -> AR,
        AR: Into<String>,
        LA: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LB: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
        LC: FnOnce(LinearCombination<Scalar>) -> LinearCombination<Scalar>,
    {
        let a = a(LinearCombination::zero());
        let b = b(LinearCombination::zero());
        let c = c(LinearCombination::zero());
        let a = eval(&a, None, Some(&mut self.a_aux_density), &self.inputs, &self.aux);
        let b = eval(
            &b,
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
            &self.inputs,
            &self.aux,
        );
        let c = c.eval(&self.inputs, &self.aux);
        self.a.push(a);
        self.b.push(b);
        self.c.push(c);
    }

    fn push_namespace<NR, N>(&mut self, _: N)
    where
        NR: Into<String>,
        N: FnOnce() -> NR,
    {
    }

    fn pop_namespace(&mut self) {}

    fn get_root(&mut self) -> &mut Self::Root {
        self
    }

    /// Circuits synthesize parts in parallel into fresh systems and append them here.
    fn is_extensible() -> bool {
        true
    }

    /// Appends a part synthesized on its own. Its first input is its own copy of ONE: it is merged
    /// into ours (bellperson does the same, so the key's input order matches).
    fn extend(&mut self, other: &Self) {
        self.a.extend_from_slice(&other.a);
        self.b.extend_from_slice(&other.b);
        self.c.extend_from_slice(&other.c);
        self.aux.extend_from_slice(&other.aux);
        self.a_aux_density.extend_from_slice(&other.a_aux_density);
        self.b_aux_density.extend_from_slice(&other.b_aux_density);
        if let Some((&one_used, rest)) = other.b_input_density.split_first() {
            if self.b_input_density.is_empty() {
                self.b_input_density.push(one_used);
            } else {
                self.b_input_density[0] |= one_used;
            }
            self.b_input_density.extend_from_slice(rest);
        }
        if let Some(rest) = other.inputs.get(1..) {
            self.inputs.extend_from_slice(rest);
        }
    }
}
