use ledger_crypto::CryptoError;
use napi::Error;

/// A JS error code; napi-rs puts it on `error.code`.
pub struct Code(pub &'static str);

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.0
    }
}

pub type Result<T> = std::result::Result<T, Error<Code>>;

pub fn from_crypto(err: CryptoError) -> Error<Code> {
    Error::new(Code(err.code()), err.to_string())
}

pub fn invalid_argument(message: impl Into<String>) -> Error<Code> {
    Error::new(Code("ERR_INVALID_ARGUMENT"), message.into())
}
