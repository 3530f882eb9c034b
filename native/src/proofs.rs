//! Storage proofs for JS: thin wrappers over `ledger-proofs`. Arguments are checked and converted
//! on the JS thread; the work itself runs on the libuv pool (`ProofTask`) and failures reject
//! with stable codes (`ERR_PROOF_PARAMS_MISSING`, `ERR_INVALID_PROOF_INPUT`, …). The VM's proof
//! syscalls run synchronously, so seal and window PoSt verification also have blocking forms.

use std::path::PathBuf;

use ledger_proofs::param_cache::{self, ParamState, ParamStatus};
use ledger_proofs::post::{self, PoStInputs, PoStSector};
use ledger_proofs::seal::{self, PreCommit, SealToVerify};
use ledger_proofs::sector_files::SectorFiles;
use ledger_proofs::settings::{self, ProofsDirs};
use ledger_proofs::{inputs, preseal, registry, Circuit, ProofsError};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;

use crate::error::{Code, Result};
use crate::task::{guarded, ProofTask};

fn coded(err: ProofsError) -> napi::Error<Code> {
    napi::Error::new(Code(err.code()), err.to_string())
}

fn invalid(message: String) -> napi::Error<Code> {
    coded(ProofsError::InvalidInput(message))
}

fn u64_of(name: &str, value: &BigInt) -> Result<u64> {
    let (negative, value, lossless) = value.get_u64();
    if negative || !lossless {
        return Err(invalid(format!("{name} must be from 0 to 2^64-1")));
    }
    Ok(value)
}

fn bytes32(name: &str, bytes: &[u8]) -> Result<[u8; 32]> {
    inputs::bytes32(name, bytes).map_err(coded)
}

fn commitment(name: &str, bytes: &[u8]) -> Result<[u8; 32]> {
    inputs::commitment(name, bytes).map_err(coded)
}

// ---- directories and parameters ----------------------------------------------------------------

#[napi(object, js_name = "ProofsDirs")]
pub struct JsProofsDirs {
    pub parameter_cache: String,
    pub parent_cache: String,
}

impl From<ProofsDirs> for JsProofsDirs {
    fn from(dirs: ProofsDirs) -> Self {
        JsProofsDirs {
            parameter_cache: dirs.parameter_cache.display().to_string(),
            parent_cache: dirs.parent_cache.display().to_string(),
        }
    }
}

/// The directories the proofs library would use: `parameterCache`, else `$LEDGER_PROOF_PARAMS`,
/// else `~/.cache/ledger-node/proof-params` (`$LEDGER_CACHE_DIR` moves the root).
#[napi]
pub fn proofs_resolve_dirs(parameter_cache: Option<String>) -> JsProofsDirs {
    ProofsDirs::resolve(parameter_cache.map(PathBuf::from)).into()
}

/// Points the proofs library at these directories. It reads them once per process: call this
/// before any other proofs call; calling again with other directories fails.
#[napi]
pub fn proofs_configure(dirs: JsProofsDirs) -> Result<()> {
    settings::configure(&ProofsDirs {
        parameter_cache: PathBuf::from(dirs.parameter_cache),
        parent_cache: PathBuf::from(dirs.parent_cache),
    })
    .map_err(coded)
}

#[napi(object, js_name = "ParameterStatus")]
pub struct JsParameterStatus {
    pub circuit: String,
    /// `complete`, `missing` or `damaged`.
    pub state: String,
    pub problem: Option<String>,
    pub params_path: String,
    pub vk_path: String,
    pub params_bytes: i64,
    pub vk_bytes: i64,
    pub generated: bool,
    pub seconds: f64,
}

fn to_js_status(status: ParamStatus, generated: bool, seconds: f64) -> JsParameterStatus {
    let (state, problem) = match status.state {
        ParamState::Complete => ("complete", None),
        ParamState::Missing => ("missing", None),
        ParamState::Damaged(reason) => ("damaged", Some(reason)),
    };
    JsParameterStatus {
        circuit: status.circuit.name().to_string(),
        state: state.to_string(),
        problem,
        params_path: status.params_path.display().to_string(),
        vk_path: status.vk_path.display().to_string(),
        params_bytes: status.params_bytes as i64,
        vk_bytes: status.vk_bytes as i64,
        generated,
        seconds,
    }
}

/// What is in `dir` for `circuit` (`winning-post`, `window-post`, `porep`); reads headers only.
#[napi]
pub fn proofs_parameter_status(dir: String, circuit: String) -> Result<JsParameterStatus> {
    let circuit = Circuit::parse(&circuit).map_err(coded)?;
    Ok(to_js_status(
        param_cache::status(&PathBuf::from(dir), circuit),
        false,
        0.0,
    ))
}

/// Generates `circuit`'s parameters into `dir` from the fixed devnet seed unless complete files
/// are there. Minutes of CPU for PoRep.
#[napi(ts_return_type = "Promise<ParameterStatus>")]
pub fn proofs_ensure_parameters_async(dir: String, circuit: String) -> Result<AsyncTask<ProofTask<JsParameterStatus>>> {
    let circuit = Circuit::parse(&circuit).map_err(coded)?;
    Ok(ProofTask::new(move || {
        let ensured = param_cache::ensure(&PathBuf::from(dir), circuit)?;
        Ok(to_js_status(ensured.status, ensured.generated, ensured.seconds))
    }))
}

// ---- sealing -----------------------------------------------------------------------------------

#[napi(object, js_name = "SectorCommitments")]
pub struct JsSectorCommitments {
    pub comm_r: Buffer,
    pub comm_d: Buffer,
}

impl From<PreCommit> for JsSectorCommitments {
    fn from(pre: PreCommit) -> Self {
        JsSectorCommitments {
            comm_r: pre.comm_r.to_vec().into(),
            comm_d: pre.comm_d.to_vec().into(),
        }
    }
}

#[napi(object, js_name = "SectorRef")]
pub struct JsSectorRef {
    /// The storage root holding `sealed/`, `cache/` and `unsealed/` (lotus-seed's layout).
    pub dir: String,
    /// Registered seal proof, as numbered on chain (5 = StackedDrg2KiBV1_1).
    pub seal_proof: i64,
    pub miner_id: BigInt,
    pub sector_number: BigInt,
}

struct Sector {
    root: PathBuf,
    proof: ledger_proofs::RegisteredSealProof,
    miner_id: u64,
    number: u64,
}

impl Sector {
    fn from_js(sector: &JsSectorRef) -> Result<Sector> {
        Ok(Sector {
            root: PathBuf::from(&sector.dir),
            proof: registry::seal_proof(sector.seal_proof).map_err(coded)?,
            miner_id: u64_of("minerId", &sector.miner_id)?,
            number: u64_of("sectorNumber", &sector.sector_number)?,
        })
    }

    fn files(&self) -> SectorFiles {
        SectorFiles::new(&self.root, self.miner_id, self.number)
    }
}

/// A copy of `piece`, which must be exactly the sector's unpadded size.
fn full_size_piece(sector: &Sector, piece: &[u8]) -> Result<Vec<u8>> {
    let expected = seal::unpadded_sector_size(sector.proof);
    if piece.len() as u64 != expected {
        return Err(invalid(format!(
            "the piece must be {expected} bytes (the sector's unpadded size), got {}",
            piece.len()
        )));
    }
    Ok(piece.to_vec())
}

/// Pre-seals a genesis sector like lotus-seed: deterministic piece, PC1, PC2, finalize.
#[napi(ts_return_type = "Promise<SectorCommitments>")]
pub fn proofs_preseal_sector_async(sector: JsSectorRef) -> Result<AsyncTask<ProofTask<JsSectorCommitments>>> {
    let sector = Sector::from_js(&sector)?;
    Ok(ProofTask::new(move || {
        preseal::preseal_sector(&sector.root, sector.proof, sector.miner_id, sector.number).map(Into::into)
    }))
}

/// AddPiece + PC1 + PC2 of a sector holding `piece` (exactly the sector's unpadded size).
#[napi(ts_return_type = "Promise<SectorCommitments>")]
pub fn proofs_precommit_sector_async(
    sector: JsSectorRef,
    ticket: Uint8Array,
    piece: Uint8Array,
) -> Result<AsyncTask<ProofTask<JsSectorCommitments>>> {
    let sector = Sector::from_js(&sector)?;
    let ticket = bytes32("ticket", &ticket)?;
    let piece = full_size_piece(&sector, &piece)?;
    Ok(ProofTask::new(move || {
        seal::precommit_sector(
            sector.proof,
            &sector.files(),
            sector.miner_id,
            sector.number,
            ticket,
            &piece[..],
        )
        .map(Into::into)
    }))
}

/// The arguments of the commit calls, checked: the sector and what C1 proves about it.
struct CommitCall {
    sector: Sector,
    ticket: [u8; 32],
    seed: [u8; 32],
    pre_commit: PreCommit,
}

impl CommitCall {
    fn from_js(sector: &JsSectorRef, ticket: &[u8], seed: &[u8], comm_r: &[u8], comm_d: &[u8]) -> Result<CommitCall> {
        Ok(CommitCall {
            sector: Sector::from_js(sector)?,
            ticket: bytes32("ticket", ticket)?,
            seed: bytes32("seed", seed)?,
            pre_commit: PreCommit {
                comm_r: commitment("commR", comm_r)?,
                comm_d: commitment("commD", comm_d)?,
            },
        })
    }

    /// Runs `work` on the sector to commit (its files resolved on the pool thread).
    fn run<T>(&self, work: impl FnOnce(&seal::SectorToCommit<'_>) -> T) -> T {
        let files = self.sector.files();
        work(&seal::SectorToCommit {
            proof: self.sector.proof,
            files: &files,
            miner_id: self.sector.miner_id,
            sector_number: self.sector.number,
            ticket: self.ticket,
            seed: self.seed,
            pre_commit: self.pre_commit,
        })
    }
}

/// C1 + C2 of a pre-committed sector: the seal proof. Needs the PoRep parameters.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn proofs_commit_sector_async(
    sector: JsSectorRef,
    ticket: Uint8Array,
    seed: Uint8Array,
    comm_r: Uint8Array,
    comm_d: Uint8Array,
) -> Result<AsyncTask<ProofTask<Buffer>>> {
    let call = CommitCall::from_js(&sector, &ticket, &seed, &comm_r, &comm_d)?;
    Ok(ProofTask::new(move || call.run(seal::commit).map(Buffer::from)))
}

/// What a sealing phase hands to the next, held on the Rust side: JS sees an opaque `External`
/// and passes it back to the next phase without copying or serializing it.
pub struct Intermediate<T: 'static>(T);

impl<T: 'static> TypeName for Intermediate<T> {
    fn type_name() -> &'static str {
        "External"
    }

    fn value_type() -> napi::ValueType {
        napi::ValueType::External
    }
}

impl<T: 'static> ToNapiValue for Intermediate<T> {
    unsafe fn to_napi_value(env: napi::sys::napi_env, value: Self) -> napi::Result<napi::sys::napi_value> {
        // SAFETY: forwarded as napi called us, on the JS thread.
        unsafe { External::to_napi_value(env, External::new(value.0)) }
    }
}

/// AddPiece alone: fresh sector directories and the unsealed copy of `piece`; resolves to CommP.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn proofs_add_piece_async(sector: JsSectorRef, piece: Uint8Array) -> Result<AsyncTask<ProofTask<Buffer>>> {
    let sector = Sector::from_js(&sector)?;
    let piece = full_size_piece(&sector, &piece)?;
    Ok(ProofTask::new(move || {
        seal::add_piece(sector.proof, &sector.files(), &piece[..]).map(|info| Buffer::from(info.commitment.to_vec()))
    }))
}

/// PC1 alone, after `proofsAddPieceAsync`: resolves to an opaque handle for PC2.
#[napi(ts_return_type = "Promise<ExternalObject<'PreCommitPhase1'>>")]
pub fn proofs_precommit_phase1_async(
    sector: JsSectorRef,
    ticket: Uint8Array,
    comm_p: Uint8Array,
) -> Result<AsyncTask<ProofTask<Intermediate<seal::SealPreCommitPhase1Output>>>> {
    let sector = Sector::from_js(&sector)?;
    let ticket = bytes32("ticket", &ticket)?;
    let comm_p = commitment("commP", &comm_p)?;
    Ok(ProofTask::new(move || {
        seal::precommit_phase1(
            sector.proof,
            &sector.files(),
            sector.miner_id,
            sector.number,
            ticket,
            comm_p,
        )
        .map(Intermediate)
    }))
}

/// PC2 alone, from PC1's handle: the sector's commitments.
#[napi(ts_return_type = "Promise<SectorCommitments>")]
pub fn proofs_precommit_phase2_async(
    sector: JsSectorRef,
    #[napi(ts_arg_type = "ExternalObject<'PreCommitPhase1'>")] phase1: &External<seal::SealPreCommitPhase1Output>,
) -> Result<AsyncTask<ProofTask<JsSectorCommitments>>> {
    let sector = Sector::from_js(&sector)?;
    let phase1 = (**phase1).clone();
    Ok(ProofTask::new(move || {
        seal::precommit_phase2(phase1, &sector.files()).map(Into::into)
    }))
}

/// C1 alone: resolves to an opaque handle for C2.
#[napi(ts_return_type = "Promise<ExternalObject<'CommitPhase1'>>")]
pub fn proofs_commit_phase1_async(
    sector: JsSectorRef,
    ticket: Uint8Array,
    seed: Uint8Array,
    comm_r: Uint8Array,
    comm_d: Uint8Array,
) -> Result<AsyncTask<ProofTask<Intermediate<seal::SealCommitPhase1Output>>>> {
    let call = CommitCall::from_js(&sector, &ticket, &seed, &comm_r, &comm_d)?;
    Ok(ProofTask::new(move || call.run(seal::commit_phase1).map(Intermediate)))
}

/// C2 alone, from C1's handle: the seal proof. Needs the PoRep parameters.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn proofs_commit_phase2_async(
    sector: JsSectorRef,
    #[napi(ts_arg_type = "ExternalObject<'CommitPhase1'>")] phase1: &External<seal::SealCommitPhase1Output>,
) -> Result<AsyncTask<ProofTask<Buffer>>> {
    let sector = Sector::from_js(&sector)?;
    let phase1 = (**phase1).clone();
    Ok(ProofTask::new(move || {
        seal::commit_phase2(phase1, sector.miner_id, sector.number).map(Buffer::from)
    }))
}

/// Keeps only what PoSt needs and removes the unsealed copy.
#[napi(ts_return_type = "Promise<void>")]
pub fn proofs_finalize_sector_async(sector: JsSectorRef) -> Result<AsyncTask<ProofTask<()>>> {
    let sector = Sector::from_js(&sector)?;
    Ok(ProofTask::new(move || seal::finalize_sector(&sector.files())))
}

#[napi(object, js_name = "SealVerifyInfo")]
pub struct JsSealVerifyInfo {
    pub seal_proof: i64,
    pub miner_id: BigInt,
    pub sector_number: BigInt,
    pub ticket: Uint8Array,
    pub seed: Uint8Array,
    pub comm_r: Uint8Array,
    pub comm_d: Uint8Array,
    pub proof: Uint8Array,
}

/// A seal proof to check, converted from JS once for the async, sync and batch calls.
struct SealCall {
    proof_type: ledger_proofs::RegisteredSealProof,
    miner_id: u64,
    sector_number: u64,
    ticket: [u8; 32],
    seed: [u8; 32],
    comm_r: [u8; 32],
    comm_d: [u8; 32],
    proof: Vec<u8>,
}

impl SealCall {
    fn from_js(info: &JsSealVerifyInfo) -> Result<SealCall> {
        Ok(SealCall {
            proof_type: registry::seal_proof(info.seal_proof).map_err(coded)?,
            miner_id: u64_of("minerId", &info.miner_id)?,
            sector_number: u64_of("sectorNumber", &info.sector_number)?,
            ticket: bytes32("ticket", &info.ticket)?,
            seed: bytes32("seed", &info.seed)?,
            comm_r: commitment("commR", &info.comm_r)?,
            comm_d: commitment("commD", &info.comm_d)?,
            proof: info.proof.to_vec(),
        })
    }

    fn verify(&self) -> ledger_proofs::Result<bool> {
        guarded(|| {
            seal::verify_seal(&SealToVerify {
                proof_type: self.proof_type,
                miner_id: self.miner_id,
                sector_number: self.sector_number,
                ticket: self.ticket,
                seed: self.seed,
                comm_r: self.comm_r,
                comm_d: self.comm_d,
                proof: &self.proof,
            })
        })
    }
}

/// Checks a seal proof; false for any proof that is not valid. Needs the PoRep verifying key.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn proofs_verify_seal_async(info: JsSealVerifyInfo) -> Result<AsyncTask<ProofTask<bool>>> {
    let call = SealCall::from_js(&info)?;
    Ok(ProofTask::new(move || call.verify()))
}

/// `proofsVerifySealAsync` on the calling thread, for the VM's `verify_seal` syscall.
#[napi]
pub fn proofs_verify_seal(info: JsSealVerifyInfo) -> Result<bool> {
    SealCall::from_js(&info)?.verify().map_err(coded)
}

/// Checks seal proofs in parallel (the FVM's `batch_verify_seals`): one answer per proof, in order.
/// As in ref-fvm a proof the library refuses is `false`; only a node-side failure (missing
/// parameters, unreadable files) throws, since answering false would fork the chain.
#[napi]
pub fn proofs_batch_verify_seals(infos: Vec<JsSealVerifyInfo>) -> Result<Vec<bool>> {
    let calls = infos.iter().map(SealCall::from_js).collect::<Result<Vec<_>>>()?;
    calls
        .par_iter()
        .map(|call| match call.verify() {
            Ok(valid) => Ok(valid),
            Err(ProofsError::InvalidInput(_) | ProofsError::Failed(_)) => Ok(false),
            Err(node_side) => Err(node_side),
        })
        .collect::<ledger_proofs::Result<Vec<_>>>()
        .map_err(coded)
}

// ---- PoSt --------------------------------------------------------------------------------------

#[napi(object, js_name = "PoStSector")]
pub struct JsPoStSector {
    pub sector_number: BigInt,
    pub comm_r: Uint8Array,
}

#[napi(object, js_name = "PoStRequest")]
pub struct JsPoStRequest {
    /// Registered PoSt proof, as numbered on chain (0 = winning 2 KiB, 10 = window 2 KiB V1_1).
    pub post_proof: i64,
    pub miner_id: BigInt,
    /// The chain's randomness; masked into a field element here.
    pub randomness: Uint8Array,
    pub sectors: Vec<JsPoStSector>,
}

struct PoStCall {
    proof_type: ledger_proofs::RegisteredPoStProof,
    miner_id: u64,
    randomness: [u8; 32],
    sectors: Vec<PoStSector>,
}

impl PoStCall {
    fn from_js(request: &JsPoStRequest) -> Result<PoStCall> {
        let sectors = request
            .sectors
            .iter()
            .map(|s| {
                let sector_number = u64_of("sectorNumber", &s.sector_number)?;
                Ok(PoStSector {
                    sector_number,
                    comm_r: bytes32(&format!("commR of sector {sector_number}"), &s.comm_r)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PoStCall {
            proof_type: registry::post_proof(request.post_proof).map_err(coded)?,
            miner_id: u64_of("minerId", &request.miner_id)?,
            randomness: bytes32("randomness", &request.randomness)?,
            sectors,
        })
    }

    fn inputs(&self) -> PoStInputs<'_> {
        PoStInputs {
            proof_type: self.proof_type,
            miner_id: self.miner_id,
            randomness: self.randomness,
            sectors: &self.sectors,
        }
    }
}

/// Indices into a proving set of `sectorCount` sectors that winning PoSt challenges.
#[napi(ts_return_type = "Promise<Array<bigint>>")]
pub fn proofs_winning_post_sector_challenge_async(
    post_proof: i64,
    miner_id: BigInt,
    randomness: Uint8Array,
    sector_count: BigInt,
) -> Result<AsyncTask<ProofTask<Vec<BigInt>>>> {
    let proof_type = registry::post_proof(post_proof).map_err(coded)?;
    let miner_id = u64_of("minerId", &miner_id)?;
    let randomness = bytes32("randomness", &randomness)?;
    let sector_count = u64_of("sectorCount", &sector_count)?;
    Ok(ProofTask::new(move || {
        post::winning_post_sector_challenge(proof_type, miner_id, randomness, sector_count)
            .map(|indices| indices.into_iter().map(BigInt::from).collect())
    }))
}

/// Reads the winning PoSt proving key into memory ahead of the first proof; resolves to true.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn proofs_preload_winning_post_key_async(post_proof: i64) -> Result<AsyncTask<ProofTask<bool>>> {
    let proof_type = registry::post_proof(post_proof).map_err(coded)?;
    Ok(ProofTask::new(move || {
        post::preload_winning_post_key(proof_type).map(|()| true)
    }))
}

/// A winning PoSt over the challenged sectors, whose replicas are under `dir`.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn proofs_generate_winning_post_async(dir: String, request: JsPoStRequest) -> Result<AsyncTask<ProofTask<Buffer>>> {
    let call = PoStCall::from_js(&request)?;
    Ok(ProofTask::new(move || {
        post::generate_winning_post(&PathBuf::from(dir), &call.inputs()).map(Buffer::from)
    }))
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn proofs_verify_winning_post_async(
    request: JsPoStRequest,
    proof: Uint8Array,
) -> Result<AsyncTask<ProofTask<bool>>> {
    let call = PoStCall::from_js(&request)?;
    let proof = proof.to_vec();
    Ok(ProofTask::new(move || {
        post::verify_winning_post(&call.inputs(), &proof)
    }))
}

/// A window PoSt over all the sectors (192 bytes per partition of 2 sectors, for 2 KiB).
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn proofs_generate_window_post_async(dir: String, request: JsPoStRequest) -> Result<AsyncTask<ProofTask<Buffer>>> {
    let call = PoStCall::from_js(&request)?;
    Ok(ProofTask::new(move || {
        post::generate_window_post(&PathBuf::from(dir), &call.inputs()).map(Buffer::from)
    }))
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn proofs_verify_window_post_async(
    request: JsPoStRequest,
    proof: Uint8Array,
) -> Result<AsyncTask<ProofTask<bool>>> {
    let call = PoStCall::from_js(&request)?;
    let proof = proof.to_vec();
    Ok(ProofTask::new(move || post::verify_window_post(&call.inputs(), &proof)))
}

/// `proofsVerifyWindowPostAsync` on the calling thread, for the VM's `verify_post` syscall.
#[napi]
pub fn proofs_verify_window_post(request: JsPoStRequest, proof: Uint8Array) -> Result<bool> {
    let call = PoStCall::from_js(&request)?;
    guarded(|| post::verify_window_post(&call.inputs(), &proof)).map_err(coded)
}
