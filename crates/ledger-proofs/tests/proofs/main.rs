//! Real proofs end to end. One test binary (a proofs link is slow), sharing the parameter cache
//! of `ProofsDirs::resolve` (`~/.cache/ledger-node/proof-params` unless `LEDGER_PROOF_PARAMS`
//! says otherwise): the first run generates what is missing, later runs reuse it.

mod params;
mod seal;
mod support;
mod window_post;
mod winning_post;
