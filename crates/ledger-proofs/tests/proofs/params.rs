use std::fs;

use ledger_proofs::param_cache::{ensure, status, ParamState};
use ledger_proofs::Circuit;
use tempfile::TempDir;

use crate::support::{dirs, params};

/// Two independent generations (the shared cache, made by an earlier run or test, and a fresh
/// directory) give byte-identical files: the seed fixes everything.
#[test]
fn post_parameters_are_deterministic() {
    for circuit in [Circuit::WindowPost, Circuit::WinningPost] {
        params(circuit);
        let fresh = TempDir::new_in(dirs().parameter_cache.parent().unwrap()).unwrap();
        let ensured = ensure(fresh.path(), circuit).unwrap();
        assert!(ensured.generated);
        eprintln!(
            "{} parameters generated again in {:.1} s",
            circuit.name(),
            ensured.seconds
        );
        let shared = status(&dirs().parameter_cache, circuit);
        for (a, b) in [
            (&shared.params_path, &ensured.status.params_path),
            (&shared.vk_path, &ensured.status.vk_path),
        ] {
            assert!(
                fs::read(a).unwrap() == fs::read(b).unwrap(),
                "{} differs from {}",
                a.display(),
                b.display()
            );
        }
    }
}

#[test]
fn damaged_files_are_detected_and_a_missing_key_is_derived() {
    params(Circuit::WindowPost);
    let shared = status(&dirs().parameter_cache, Circuit::WindowPost);
    assert_eq!(shared.state, ParamState::Complete);
    let dir = TempDir::new().unwrap();
    let mine = status(dir.path(), Circuit::WindowPost);
    assert_eq!(mine.state, ParamState::Missing);

    let bytes = fs::read(&shared.params_path).unwrap();
    fs::write(&mine.params_path, &bytes[..bytes.len() - 1]).unwrap();
    fs::copy(&shared.vk_path, &mine.vk_path).unwrap();
    assert!(matches!(
        status(dir.path(), Circuit::WindowPost).state,
        ParamState::Damaged(_)
    ));

    fs::write(&mine.params_path, &bytes).unwrap();
    fs::remove_file(&mine.vk_path).unwrap();
    let ensured = ensure(dir.path(), Circuit::WindowPost).unwrap();
    assert!(!ensured.generated, "the key comes from the .params, not a new setup");
    assert_eq!(ensured.status.state, ParamState::Complete);
    assert_eq!(fs::read(&mine.vk_path).unwrap(), fs::read(&shared.vk_path).unwrap());
}
