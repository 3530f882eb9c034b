use std::path::{Path, PathBuf};

use crate::error::{ProofsError, Result};

/// Where one sector's files live under a storage root, in lotus-seed's layout (Lotus `basicfs`):
/// `<root>/unsealed/s-t0<miner>-<number>`, `<root>/sealed/…` and the `<root>/cache/…/` directory.
#[derive(Clone, Debug)]
pub struct SectorFiles {
    pub unsealed: PathBuf,
    pub sealed: PathBuf,
    pub cache: PathBuf,
}

impl SectorFiles {
    pub fn new(root: &Path, miner_id: u64, sector_number: u64) -> SectorFiles {
        let name = format!("s-t0{miner_id}-{sector_number}");
        SectorFiles {
            unsealed: root.join("unsealed").join(&name),
            sealed: root.join("sealed").join(&name),
            cache: root.join("cache").join(&name),
        }
    }

    /// Fails unless the sealed replica and its cache directory exist (what proving reads).
    pub fn require_replica(&self, sector_number: u64) -> Result<()> {
        for path in [&self.sealed, &self.cache] {
            if !path.exists() {
                return Err(ProofsError::invalid(format!(
                    "sector {sector_number} has no replica here: {} is missing",
                    path.display()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_lotus_basicfs() {
        let files = SectorFiles::new(Path::new("/s"), 1000, 7);
        assert_eq!(files.sealed, Path::new("/s/sealed/s-t01000-7"));
        assert_eq!(files.unsealed, Path::new("/s/unsealed/s-t01000-7"));
        assert_eq!(files.cache, Path::new("/s/cache/s-t01000-7"));
    }
}
