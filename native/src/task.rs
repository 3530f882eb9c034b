//! Proof work on the libuv thread pool with failures that keep their stable codes. napi's
//! `Task::compute` can only fail with a napi `Status`, so the work's own result travels through
//! `compute` and is turned into a coded JS error on the JS thread.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ledger_proofs::ProofsError;
use napi::bindgen_prelude::{AsyncTask, ToNapiValue, TypeName};
use napi::{Env, JsError, Task, Unknown};

use crate::error::Code;

type Work<T> = Box<dyn FnOnce() -> ledger_proofs::Result<T> + Send>;

pub struct ProofTask<T> {
    work: Option<Work<T>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> ProofTask<T> {
    pub fn new(work: impl FnOnce() -> ledger_proofs::Result<T> + Send + 'static) -> AsyncTask<Self> {
        AsyncTask::new(ProofTask {
            work: Some(Box::new(work)),
        })
    }
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for ProofTask<T> {
    type Output = ledger_proofs::Result<T>;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let work = self.work.take().expect("a task runs once");
        Ok(guarded(work))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<T> {
        output.map_err(|err| coded_rejection(&env, err.code(), err.to_string()))
    }
}

/// Runs proof work, turning a panic deep in the proofs library into an error: it must not take
/// the node down with it. The synchronous calls use it as the pool tasks do.
pub fn guarded<T>(work: impl FnOnce() -> ledger_proofs::Result<T>) -> ledger_proofs::Result<T> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        Err(ProofsError::failure(format!("the proofs library panicked: {message}")))
    })
}

/// A JS `Error` carrying `code`, wrapped so napi rejects the promise with that very object.
fn coded_rejection(env: &Env, code: &'static str, message: String) -> napi::Error {
    let error = JsError::from(napi::Error::new(Code(code), message));
    // SAFETY: `resolve` runs on the JS thread with a live `env`.
    unsafe {
        let value = error.into_value(env.raw());
        napi::Error::from(Unknown::from_raw_unchecked(env.raw(), value))
    }
}
