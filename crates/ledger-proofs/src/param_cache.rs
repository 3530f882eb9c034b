//! The parameter cache directory: which circuits' files are there and complete, and generating
//! the missing ones deterministically, atomically and once even when several processes ask.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use bellperson::groth16::VerifyingKey;
use blstrs::Bls12;
use fs2::FileExt;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use crate::circuits::Circuit;
use crate::error::{ProofsError, Result};
use crate::settings::configured_dirs;

/// The ChaCha20 seed of every devnet parameter file: 32 ASCII bytes, public on purpose. Anyone can
/// recompute the toxic waste, so these parameters are insecure; in exchange every machine
/// generates byte-identical files and nodes never ship or agree on key files.
pub const DEVNET_PARAMETER_SEED: [u8; 32] = *b"ledger-node/devnet-groth16-seed1";

const G1_UNCOMPRESSED: u64 = 96;
const G2_UNCOMPRESSED: u64 = 192;
/// alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, then the u32 count of `ic` points.
const VK_FIXED_PART: u64 = 3 * G1_UNCOMPRESSED + 3 * G2_UNCOMPRESSED;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamState {
    Complete,
    Missing,
    /// Present but unusable (truncated, or a `.vk` that is not the one inside the `.params`).
    Damaged(String),
}

#[derive(Clone, Debug)]
pub struct ParamStatus {
    pub circuit: Circuit,
    pub params_path: PathBuf,
    pub vk_path: PathBuf,
    pub state: ParamState,
    /// Sizes on disk, 0 when absent.
    pub params_bytes: u64,
    pub vk_bytes: u64,
}

#[derive(Clone, Debug)]
pub struct Ensured {
    pub status: ParamStatus,
    /// False when complete files were already there (they are never rewritten).
    pub generated: bool,
    pub seconds: f64,
}

/// Where `circuit`'s files are, and whether they are complete. Reads only the headers.
pub fn status(dir: &Path, circuit: Circuit) -> ParamStatus {
    let params_path = dir.join(circuit.params_file_name());
    let vk_path = dir.join(circuit.vk_file_name());
    let size = |p: &Path| fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let state = match check_pair(&params_path, &vk_path) {
        Ok(()) => ParamState::Complete,
        Err(Check::Missing) => ParamState::Missing,
        Err(Check::Damaged(reason)) => ParamState::Damaged(reason),
    };
    ParamStatus {
        circuit,
        params_bytes: size(&params_path),
        vk_bytes: size(&vk_path),
        params_path,
        vk_path,
        state,
    }
}

/// Makes `circuit`'s files complete in `dir`: keeps complete files, derives a missing `.vk` from
/// its `.params`, otherwise runs the seeded setup. Concurrent callers for one circuit wait for
/// each other (a lock file per circuit); files appear only whole (temp file, then rename).
pub fn ensure(dir: &Path, circuit: Circuit) -> Result<Ensured> {
    let started = Instant::now();
    let done = |generated: bool| Ensured {
        status: status(dir, circuit),
        generated,
        seconds: started.elapsed().as_secs_f64(),
    };
    if status(dir, circuit).state == ParamState::Complete {
        return Ok(done(false));
    }
    fs::create_dir_all(dir).map_err(|e| ProofsError::io(format!("creating {}", dir.display()), e))?;
    let lock_path = dir.join(format!(".{}.lock", circuit.name()));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| ProofsError::io(format!("opening {}", lock_path.display()), e))?;
    lock.lock_exclusive()
        .map_err(|e| ProofsError::io(format!("locking {}", lock_path.display()), e))?;

    let current = status(dir, circuit);
    let generated = match current.state {
        ParamState::Complete => false,
        _ if check_params(&current.params_path).is_ok() => {
            write_vk_from_params(&current.params_path, &current.vk_path)?;
            false
        }
        _ => {
            generate(circuit, &current.params_path, &current.vk_path)?;
            true
        }
    };
    // Dropping the file releases the lock; the lock file stays so later waiters share one inode.
    drop(lock);
    Ok(done(generated))
}

/// What a proofs call reads from the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The `.params` and the `.vk` (proving checks its own proof).
    Proving,
    /// The `.vk` only.
    Verifying,
}

/// Configures the library (defaults on first use) and fails with `ParamsMissing` unless the cache
/// has `circuit`'s files. Checked up front so the user gets the command that fixes it, not the
/// library's lookup error. Presence is enough: files only ever appear whole. Proof types without a
/// devnet circuit (other sector sizes) are left to the library.
pub(crate) fn require(circuit: Option<Circuit>, need: Need) -> Result<()> {
    let dir = configured_dirs()?.parameter_cache;
    let Some(circuit) = circuit else {
        return Ok(());
    };
    let mut files = vec![circuit.vk_file_name()];
    if need == Need::Proving {
        files.push(circuit.params_file_name());
    }
    for name in files {
        let path = dir.join(name);
        if !path.is_file() {
            return Err(ProofsError::ParamsMissing {
                circuit: circuit.name(),
                path,
                flag: circuit.cli_flag(),
            });
        }
    }
    Ok(())
}

fn generate(circuit: Circuit, params_path: &Path, vk_path: &Path) -> Result<()> {
    remove_stale_temp_files(params_path)?;
    remove_stale_temp_files(vk_path)?;
    let mut rng = ChaCha20Rng::from_seed(DEVNET_PARAMETER_SEED);
    let parameters = circuit.setup(&mut rng)?;
    write_atomically(params_path, |w| parameters.write(w))?;
    write_atomically(vk_path, |w| parameters.vk.write(w))
}

fn write_vk_from_params(params_path: &Path, vk_path: &Path) -> Result<()> {
    let mut file = open(params_path)?;
    let vk = VerifyingKey::<Bls12>::read(&mut file)
        .map_err(|e| ProofsError::io(format!("reading the key in {}", params_path.display()), e))?;
    write_atomically(vk_path, |w| vk.write(w))
}

fn write_atomically(path: &Path, write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>) -> Result<()> {
    let temp = temp_path(path);
    let context = || format!("writing {}", temp.display());
    let file = File::create(&temp).map_err(|e| ProofsError::io(context(), e))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    write(&mut writer).map_err(|e| ProofsError::io(context(), e))?;
    let file = writer
        .into_inner()
        .map_err(|e| ProofsError::io(context(), e.into_error()))?;
    file.sync_all().map_err(|e| ProofsError::io(context(), e))?;
    fs::rename(&temp, path).map_err(|e| ProofsError::io(format!("renaming {} into place", temp.display()), e))
}

fn temp_prefix(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    format!(".{name}.tmp-")
}

fn temp_path(path: &Path) -> PathBuf {
    path.with_file_name(format!("{}{}", temp_prefix(path), std::process::id()))
}

/// Leftovers of a run that died mid-write. Only called under the circuit's lock, so no live
/// writer owns them.
fn remove_stale_temp_files(path: &Path) -> Result<()> {
    let dir = path.parent().expect("cache files live in a directory");
    let prefix = temp_prefix(path);
    let entries = fs::read_dir(dir).map_err(|e| ProofsError::io(format!("listing {}", dir.display()), e))?;
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            fs::remove_file(entry.path())
                .map_err(|e| ProofsError::io(format!("removing {}", entry.path().display()), e))?;
        }
    }
    Ok(())
}

enum Check {
    Missing,
    Damaged(String),
}

fn check_pair(params_path: &Path, vk_path: &Path) -> std::result::Result<(), Check> {
    let vk_length = check_params(params_path)?;
    let vk = match fs::read(vk_path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Check::Missing),
        Err(e) => return Err(Check::Damaged(format!("{}: {e}", vk_path.display()))),
    };
    if VerifyingKey::<Bls12>::read(&vk[..]).is_err() || vk.len() as u64 != vk_length {
        return Err(Check::Damaged(format!("{} is not a verifying key", vk_path.display())));
    }
    let mut embedded = vec![0u8; vk.len()];
    read_at(params_path, 0, &mut embedded)?;
    if embedded != vk {
        return Err(Check::Damaged(format!(
            "{} does not belong to {}",
            vk_path.display(),
            params_path.display()
        )));
    }
    Ok(())
}

/// Walks the section headers of a `.params` file (bellperson's layout: the verifying key, then
/// h, l, a, b_g1 in G1 and b_g2 in G2, each a u32 count and uncompressed points) and checks the
/// file ends where they say. Returns the length of the embedded verifying key.
fn check_params(path: &Path) -> std::result::Result<u64, Check> {
    let damaged = |reason: &str| Check::Damaged(format!("{}: {reason}", path.display()));
    let length = match fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Check::Missing),
        Err(e) => return Err(Check::Damaged(format!("{}: {e}", path.display()))),
    };
    let count_at = |offset: u64| -> std::result::Result<u64, Check> {
        if offset + 4 > length {
            return Err(damaged("truncated"));
        }
        let mut raw = [0u8; 4];
        read_at(path, offset, &mut raw)?;
        Ok(u32::from_be_bytes(raw) as u64)
    };
    let vk_length = VK_FIXED_PART + 4 + count_at(VK_FIXED_PART)? * G1_UNCOMPRESSED;
    let mut offset = vk_length;
    for point_size in [
        G1_UNCOMPRESSED,
        G1_UNCOMPRESSED,
        G1_UNCOMPRESSED,
        G1_UNCOMPRESSED,
        G2_UNCOMPRESSED,
    ] {
        offset += 4 + count_at(offset)? * point_size;
    }
    if offset != length {
        return Err(damaged(&format!("{length} bytes where the headers describe {offset}")));
    }
    Ok(vk_length)
}

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| ProofsError::io(format!("opening {}", path.display()), e))
}

fn read_at(path: &Path, offset: u64, buf: &mut [u8]) -> std::result::Result<(), Check> {
    let fail = |e: std::io::Error| Check::Damaged(format!("{}: {e}", path.display()));
    let mut file = File::open(path).map_err(fail)?;
    file.seek(SeekFrom::Start(offset)).map_err(fail)?;
    file.read_exact(buf).map_err(fail)
}
