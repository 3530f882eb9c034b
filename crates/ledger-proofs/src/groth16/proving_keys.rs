//! Proving keys held in memory for the life of the process. The proofs library maps the `.params`
//! file and decodes every point again on each proof; decoding it once here (about 0.25 s for the
//! 45 MiB winning PoSt key) takes that off every later proof.

use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bellperson::groth16::Parameters;
use blstrs::Bls12;

use crate::error::{ProofsError, Result};

static KEYS: Mutex<Option<HashMap<PathBuf, Arc<Parameters<Bls12>>>>> = Mutex::new(None);

/// The proving key in `path`, read on first use. Callers for a key being read wait for it.
pub fn proving_key(path: &Path) -> Result<Arc<Parameters<Bls12>>> {
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    let keys = keys.get_or_insert_with(HashMap::new);
    if let Some(key) = keys.get(path) {
        return Ok(key.clone());
    }
    let context = || format!("reading the proving key {}", path.display());
    let file = File::open(path).map_err(|e| ProofsError::io(context(), e))?;
    // Unchecked like the library's own reads: files only appear whole, from our seeded setup.
    let key = Parameters::<Bls12>::read(BufReader::with_capacity(1 << 20, file), false)
        .map_err(|e| ProofsError::io(context(), e))?;
    let key = Arc::new(key);
    keys.insert(path.to_path_buf(), key.clone());
    Ok(key)
}
