//! Where the proofs library keeps Groth16 parameters and the SDR parent cache. The library reads
//! its settings once per process (a lazy static built from `FIL_PROOFS_*` variables), so the
//! directories must be chosen before the first proofs call; `configure` does that and then checks
//! the settings actually in force.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use storage_proofs_core::settings::SETTINGS;

use crate::error::{ProofsError, Result};

/// Overrides the parameter cache directory.
pub const PARAMS_DIR_VARIABLE: &str = "LEDGER_PROOF_PARAMS";
/// The root of ledger-node's caches (the cargo target directory lives there too).
pub const CACHE_DIR_VARIABLE: &str = "LEDGER_CACHE_DIR";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofsDirs {
    /// Groth16 `.params`/`.vk` files (`FIL_PROOFS_PARAMETER_CACHE`).
    pub parameter_cache: PathBuf,
    /// SDR parent graphs (`FIL_PROOFS_PARENT_CACHE`), written on the first seal of each shape.
    pub parent_cache: PathBuf,
}

impl ProofsDirs {
    /// `parameter_cache`, else `$LEDGER_PROOF_PARAMS`, else `<cache>/proof-params`; the parent cache
    /// is `<cache>/proof-parents`. `<cache>` is `$LEDGER_CACHE_DIR` or `~/.cache/ledger-node`.
    pub fn resolve(parameter_cache: Option<PathBuf>) -> ProofsDirs {
        let cache_root = env::var_os(CACHE_DIR_VARIABLE)
            .map(PathBuf::from)
            .unwrap_or_else(|| home_dir().join(".cache").join("ledger-node"));
        let parameter_cache = parameter_cache
            .or_else(|| env::var_os(PARAMS_DIR_VARIABLE).map(PathBuf::from))
            .unwrap_or_else(|| cache_root.join("proof-params"));
        ProofsDirs {
            parameter_cache,
            parent_cache: cache_root.join("proof-parents"),
        }
    }
}

fn home_dir() -> PathBuf {
    env::var_os("HOME")
        .or_else(|| env::var_os("USERPROFILE"))
        .map(PathBuf::from)
        .unwrap_or_else(env::temp_dir)
}

static CONFIGURED: Mutex<Option<ProofsDirs>> = Mutex::new(None);

/// Points the proofs library at `dirs` (creating them). Calling it again with the same
/// directories is free; with others it fails, because the library cannot switch.
pub fn configure(dirs: &ProofsDirs) -> Result<()> {
    let mut configured = CONFIGURED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(current) = configured.as_ref() {
        return compare("the parameter cache", &current.parameter_cache, &dirs.parameter_cache)
            .and_then(|_| compare("the parent cache", &current.parent_cache, &dirs.parent_cache));
    }
    for dir in [&dirs.parameter_cache, &dirs.parent_cache] {
        fs::create_dir_all(dir).map_err(|e| ProofsError::io(format!("creating {}", dir.display()), e))?;
    }
    env::set_var("FIL_PROOFS_PARAMETER_CACHE", &dirs.parameter_cache);
    env::set_var("FIL_PROOFS_PARENT_CACHE", &dirs.parent_cache);
    // Devnet parameters are not the published ones, so the production digest check rejects them.
    if SETTINGS.verify_production_params {
        return Err(ProofsError::SettingsConflict {
            setting: "FIL_PROOFS_VERIFY_PRODUCTION_PARAMS",
            current: "true".into(),
            requested: "false (unset it: devnet parameters are generated locally)".into(),
        });
    }
    compare(
        "the parameter cache",
        Path::new(&SETTINGS.parameter_cache),
        &dirs.parameter_cache,
    )?;
    compare(
        "the parent cache",
        Path::new(&SETTINGS.parent_cache),
        &dirs.parent_cache,
    )?;
    *configured = Some(dirs.clone());
    Ok(())
}

/// The directories in force, configuring the defaults if nothing was configured yet.
pub fn configured_dirs() -> Result<ProofsDirs> {
    let current = CONFIGURED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match current {
        Some(dirs) => Ok(dirs),
        None => {
            let dirs = ProofsDirs::resolve(None);
            configure(&dirs)?;
            Ok(dirs)
        }
    }
}

fn compare(setting: &'static str, current: &Path, requested: &Path) -> Result<()> {
    if current == requested {
        return Ok(());
    }
    Err(ProofsError::SettingsConflict {
        setting,
        current: current.display().to_string(),
        requested: requested.display().to_string(),
    })
}
