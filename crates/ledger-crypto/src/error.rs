use thiserror::Error;

/// Errors carry a stable code so callers (and JS, through the addon) can branch on them.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CryptoError {
    #[error("invalid {what} length: expected {expected} bytes, got {actual}")]
    InvalidLength {
        what: &'static str,
        expected: usize,
        actual: usize,
    },
    #[error("invalid private key: {0}")]
    InvalidPrivateKey(&'static str),
    #[error("invalid public key: {0}")]
    InvalidPublicKey(&'static str),
    #[error("invalid signature: {0}")]
    InvalidSignature(&'static str),
    #[error("{0}")]
    InvalidArgument(String),
}

impl CryptoError {
    pub fn code(&self) -> &'static str {
        match self {
            CryptoError::InvalidLength { .. } => "ERR_INVALID_LENGTH",
            CryptoError::InvalidPrivateKey(_) => "ERR_INVALID_PRIVATE_KEY",
            CryptoError::InvalidPublicKey(_) => "ERR_INVALID_PUBLIC_KEY",
            CryptoError::InvalidSignature(_) => "ERR_INVALID_SIGNATURE",
            CryptoError::InvalidArgument(_) => "ERR_INVALID_ARGUMENT",
        }
    }
}

pub type Result<T> = std::result::Result<T, CryptoError>;

pub(crate) fn expect_len<const N: usize>(what: &'static str, bytes: &[u8]) -> Result<[u8; N]> {
    bytes.try_into().map_err(|_| CryptoError::InvalidLength {
        what,
        expected: N,
        actual: bytes.len(),
    })
}
