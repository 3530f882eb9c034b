use std::io;
use std::path::PathBuf;

/// Why a proofs call failed. Each variant has a stable `code` that reaches JavaScript unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ProofsError {
    #[error(
        "the {circuit} Groth16 parameters are missing or incomplete ({path}); run `ledger proofs params{flag}` to generate them"
    )]
    ParamsMissing {
        circuit: &'static str,
        path: PathBuf,
        /// The CLI flag that generates this circuit (`" --porep"` for PoRep, empty otherwise).
        flag: &'static str,
    },

    #[error("{0}")]
    InvalidInput(String),

    #[error(
        "the proofs library already uses {current} for {setting} in this process and cannot switch to {requested}; set it before the first proofs call"
    )]
    SettingsConflict {
        setting: &'static str,
        current: String,
        requested: String,
    },

    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },

    /// The proofs library refused or failed; its message is kept whole.
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

impl ProofsError {
    pub fn code(&self) -> &'static str {
        match self {
            ProofsError::ParamsMissing { .. } => "ERR_PROOF_PARAMS_MISSING",
            ProofsError::InvalidInput(_) => "ERR_INVALID_PROOF_INPUT",
            ProofsError::SettingsConflict { .. } => "ERR_PROOF_SETTINGS_CONFLICT",
            ProofsError::Io { .. } => "ERR_PROOF_IO",
            ProofsError::Failed(_) => "ERR_PROOF_FAILED",
        }
    }

    /// A failure described in words (e.g. a caught panic).
    pub fn failure(message: impl Into<String>) -> Self {
        ProofsError::Failed(anyhow::anyhow!(message.into()))
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        ProofsError::InvalidInput(message.into())
    }

    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        ProofsError::Io {
            context: context.into(),
            source,
        }
    }
}

impl From<anyhow::Error> for ProofsError {
    fn from(err: anyhow::Error) -> Self {
        ProofsError::Failed(err)
    }
}

pub type Result<T> = std::result::Result<T, ProofsError>;
