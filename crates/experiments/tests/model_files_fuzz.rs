//! Model files of every kind `nn fit --save` writes — the ELM and the BLS,
//! each also `--updatable`, the SLFN, the DFNN, the BPLS network trained by
//! BPLS and by backprop — mutated and then given a valid checksum, so that
//! the decoder and the pipeline's validation (not the checksum) meet them
//! (issue 36, §6: the first round's fuzzing covered the ELM and the BLS).
//! Every mutated file is refused with an error, or loads as a pipeline that
//! predicts finite values or refuses to; never a panic, an abort or a huge
//! allocation.

mod common;

use std::path::{Path, PathBuf};

use common::{data, run, temp_dir};
use experiments::cli::FittedPipeline;
use experiments::datasets;
use test_support::TestRng;

/// The length of a pipeline file's header: the 8 magic bytes and the
/// format version (a one-byte varint).
const HEADER: usize = 9;

/// `nn fit --save` of `flags` on `train` (`task`); the model file.
fn saved(dir: &Path, name: &str, train: &str, task: &str, flags: &[&str]) -> PathBuf {
    let model = dir.join(name);
    let mut args = vec![
        "fit",
        "--train",
        train,
        "--test",
        train,
        "--task",
        task,
        "--threads",
        "1",
    ];
    args.extend(flags);
    let path = model.display().to_string();
    args.extend(["--save", &path]);
    let (code, _, err) = run(&args);
    assert_eq!(code, Some(0), "{flags:?}: {err}");
    model
}

/// `bytes` (a checksummed pipeline file) after up to four byte writes, an
/// insertion and a cut of its body, with the checksum made valid again.
fn mutated(bytes: &[u8], rng: &mut TestRng) -> Vec<u8> {
    let (head, rest) = bytes.split_at(HEADER);
    let mut body = rest[4..].to_vec();
    let mut below = |n: usize| (rng.next_u64() % n.max(1) as u64) as usize;
    for _ in 0..1 + below(4) {
        if !body.is_empty() {
            let at = below(body.len());
            body[at] = below(256) as u8;
        }
    }
    if below(4) == 0 {
        let at = below(body.len() + 1);
        let extra: Vec<u8> = (0..1 + below(8)).map(|_| below(256) as u8).collect();
        body.splice(at..at, extra);
    }
    if below(4) == 0 {
        let cut = below(body.len() / 8 + 1);
        body.truncate(body.len() - cut);
    }
    let checksum = models::envelope::crc32(&[head, &body]);
    [head, &checksum.to_le_bytes()[..], &body].concat()
}

#[test]
fn checksum_valid_mutations_of_every_model_kind_are_refused_or_predict() {
    let dir = temp_dir("model-files-fuzz");
    let (airfoil, pima) = (data("airfoil/airfoil.csv.gz"), data("pima/pima.csv.gz"));
    let models = [
        saved(
            dir.path(),
            "slfn.bin",
            &airfoil,
            "regression",
            &["--model", "slfn", "--hidden", "3", "--maxiter", "1"],
        ),
        saved(
            dir.path(),
            "dfnn.bin",
            &pima,
            "classification",
            &["--model", "dfnn", "--layers", "3,2", "--time-limit", "0.2"],
        ),
        saved(
            dir.path(),
            "bpls.bin",
            &pima,
            "classification",
            &["--model", "bpls", "--layers", "4", "--iterations", "1"],
        ),
        saved(
            dir.path(),
            "adam.bin",
            &airfoil,
            "regression",
            &[
                "--model",
                "bpls",
                "--layers",
                "3",
                "--trainer",
                "adam",
                "--max-epochs",
                "1",
            ],
        ),
        saved(
            dir.path(),
            "online-elm.bin",
            &airfoil,
            "regression",
            &["--model", "elm", "--hidden", "4", "--updatable"],
        ),
        saved(
            dir.path(),
            "online-bls.bin",
            &pima,
            "classification",
            &[
                "--model",
                "bls",
                "--feature-groups",
                "1",
                "--feature-nodes",
                "2",
                "--enhancement",
                "3",
                "--updatable",
            ],
        ),
        saved(
            dir.path(),
            "elm.bin",
            &airfoil,
            "regression",
            &["--model", "elm", "--hidden", "4"],
        ),
    ];
    let x_airfoil = datasets::load_any(&airfoil).expect("airfoil").x;
    let x_pima = datasets::load_any(&pima).expect("pima").x;
    let cases: u64 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(300);
    for model in &models {
        let bytes = std::fs::read(model).expect("the model file");
        let original = FittedPipeline::from_bytes(model, &bytes).expect("the saved model loads");
        let x = if original.n_inputs() == x_airfoil.ncols() {
            &x_airfoil
        } else {
            &x_pima
        };
        assert!(original.predict(x).is_ok(), "{}", model.display());
        let mut rng = TestRng::new(0x5eed ^ bytes.len() as u64);
        let (mut loaded, mut refused) = (0, 0);
        for _ in 0..cases {
            let bad = mutated(&bytes, &mut rng);
            match FittedPipeline::from_bytes(model, &bad) {
                Err(e) => {
                    refused += 1;
                    assert!(e.to_string().contains(&model.display().to_string()), "{e}");
                }
                Ok(p) => {
                    loaded += 1;
                    // Whatever loads is a validated pipeline: it predicts
                    // finite values, or says why it cannot.
                    if p.n_inputs() == x.ncols() {
                        if let Ok(values) = p.predict(x) {
                            assert!(values.iter().all(|v| v.is_finite()), "{}", model.display());
                        }
                    }
                }
            }
        }
        eprintln!("{}: {refused} refused, {loaded} loaded", model.display());
        assert_eq!(refused + loaded, cases);
    }
}
