//! Unit tests of [`super`] (`cli/bpls.rs`), kept apart from the code.

use super::*;
use crate::cli::args::resolve_fit;
use models::optim::first_order::FirstOrderKind;
use nn_data::pipeline::check_mlp_network as check_network;

fn resolve(task: &str, extra: &[&str]) -> Result<BplsArgs, String> {
    let base = ["--train", "a.csv", "--test", "b.csv", "--task", task, "--model", "bpls"];
    let a = resolve_fit(&[&base[..], extra].concat())?;
    match a.model {
        crate::cli::ModelArgs::Bpls(b) => Ok(b),
        other => Err(format!("not bpls: {other:?}")),
    }
}

#[test]
fn defaults_are_the_papers() -> Result<(), String> {
    let c = resolve("classification", &["--layers", "50"])?;
    assert_eq!(c.hidden, vec![50]);
    assert_eq!(
        (c.hidden_activation, c.output),
        (Activation::Sigmoid, OutputActivation::Softmax)
    );
    let algorithm = BplsAlgorithm::NonInjective { max_iterations: 39 };
    assert_eq!(
        c.trainer,
        MlpTrainer::Bpls {
            algorithm,
            lambda: DEFAULT_LAMBDA
        }
    );
    let r = resolve(
        "regression",
        &["--layers", "5,4", "--activation", "tanh", "--lambda", "0.5"],
    )?;
    assert_eq!(
        (r.hidden_activation, r.output),
        (Activation::Tanh, OutputActivation::Linear)
    );
    let algorithm = BplsAlgorithm::Injective;
    assert_eq!(r.trainer, MlpTrainer::Bpls { algorithm, lambda: 0.5 });
    let z = resolve(
        "classification",
        &["--layers", "3", "--iterations", "0", "--output-activation", "sigmoid"],
    )?;
    assert_eq!(z.output, OutputActivation::Sigmoid);
    let algorithm = BplsAlgorithm::NonInjective { max_iterations: 0 };
    assert!(matches!(z.trainer, MlpTrainer::Bpls { algorithm: a, .. } if a == algorithm));
    let b = resolve("classification", &["--layers", "3", "--trainer", "nag", "--seed", "7"])?;
    let want = Backprop::new(FirstOrderKind::Nag)
        .with_learning_rate(1e-3)
        .with_batch_size(128)
        .with_epochs(40)
        .with_shuffle(Some(7));
    assert_eq!(b.trainer, MlpTrainer::Backprop(want));
    let b = resolve(
        "regression",
        &[
            "--layers",
            "3",
            "--trainer",
            "adagrad",
            "--batch-size",
            "1",
            "--max-epochs",
            "2",
            "--learning-rate",
            "0.1",
        ],
    )?;
    let MlpTrainer::Backprop(bp) = b.trainer else {
        return Err("not backprop".into());
    };
    assert_eq!((bp.batch_size, bp.epochs, bp.learning_rate), (1, 2, 0.1));
    Ok(())
}

#[test]
fn bad_combinations_name_the_flag() {
    let e = |task: &str, extra: &[&str]| resolve(task, extra).err().unwrap_or_default();
    let c = |extra: &[&str]| e("classification", &[&["--layers", "4"][..], extra].concat());
    assert!(e("classification", &[]).contains("--layers is required with --model bpls"));
    assert!(e("regression", &["--layers", "4", "--iterations", "3"])
        .contains("--iterations does not apply to a regression task"));
    assert!(e("regression", &["--layers", "4", "--output-activation", "softmax"])
        .contains("--output-activation softmax does not apply to a regression task"));
    assert!(c(&["--activation", "relu"]).contains("--activation relu does not apply to --model bpls"));
    assert!(c(&["--batch-size", "8"]).contains("--batch-size does not apply to --trainer bpls"));
    assert!(c(&["--max-epochs", "8"]).contains("--max-epochs does not apply to --trainer bpls"));
    assert!(c(&["--learning-rate", "0.1"]).contains("--learning-rate does not apply to --trainer bpls"));
    assert!(c(&["--trainer", "adam", "--iterations", "2"]).contains("--iterations does not apply to --trainer adam"));
    assert!(c(&["--trainer", "sgd", "--lambda", "1"]).contains("--lambda does not apply to --trainer sgd"));
    assert!(c(&["--lambda", "0"]).contains("--lambda 0: BPLS's λ must be finite and > 0"));
    assert!(c(&["--trainer", "b2ld"]).contains("--trainer b2ld does not apply to --model bpls"));
    assert!(c(&["--learning-rate", "0"]).contains("--learning-rate"));
    assert!(c(&["--time-limit", "1"]).contains("--time-limit does not apply to --trainer bpls"));
    for (flag, value) in [("--hidden", "3"), ("--solver", "ridge"), ("--maxiter", "2")] {
        let msg = c(&[flag, value]);
        assert!(msg.contains(&format!("{flag} does not apply to --model bpls")), "{msg}");
    }
    assert!(c(&["--no-bias"]).contains("--no-bias does not apply to --model bpls"));
}

/// BPLS on 100 samples of 4 features, layers 5 → 3 → 2 outputs, 10
/// test samples: K·Σn = 100·10, 4·K·max n = 4·100·5, the misses' copy
/// 100·(4 + 10), weights (5·5 + 3·6 + 2·4)·4, test 2·10·5, the largest
/// square 6² (the second layer's Gram matrix of its 5 inputs and the
/// bias; above the neuron targets' 3² and 2²) — by hand; Algorithm 1
/// without the misses' copy; Adam with B = 16 and no square.
#[test]
fn the_memory_estimate_counts_by_hand() -> Result<(), String> {
    let size = FitSize {
        train: 100,
        test: 10,
        features: 4,
        nodes: 8,
        outputs: 2,
    };
    let weights = 5 * 5 + 3 * 6 + 2 * 4;
    let common = 100 * 10 + 4 * 100 * 5 + 4 * weights + 2 * 10 * 5 + 6 * 6;
    let c = resolve("classification", &["--layers", "5,3"])?;
    assert_eq!(fit_bytes(&c, size), Some(8 * (common + 100 * 14) as u128));
    let r = resolve("regression", &["--layers", "5,3"])?;
    assert_eq!(fit_bytes(&r, FitSize { outputs: 2, ..size }), Some(8 * common as u128));
    let a = resolve(
        "classification",
        &["--layers", "5,3", "--trainer", "adam", "--batch-size", "16"],
    )?;
    let want = 4 * 16 * 10 + 4 * weights + 100 * 10 + 2 * 10 * 5;
    assert_eq!(fit_bytes(&a, size), Some(8 * want as u128));
    // Fewer samples than a layer's inputs: the K×K dual system, not the
    // (n+1)² Gram matrix; the neuron targets' smaller side.
    let wide = resolve("classification", &["--layers", "3", "--iterations", "0"])?;
    let few = FitSize {
        train: 30,
        test: 0,
        features: 20000,
        nodes: 3,
        outputs: 2,
    };
    let weights = 3 * 20001 + 2 * 4;
    let want = 30 * 5 + 4 * 30 * 3 + 30 * (20000 + 5) + 4 * weights + 30 * 30;
    assert_eq!(fit_bytes(&wide, few), Some(8 * want as u128));
    let tall = resolve("regression", &["--layers", "60000"])?;
    let eighty = FitSize {
        train: 80,
        test: 0,
        features: 3,
        nodes: 60000,
        outputs: 1,
    };
    let weights = 60000 * 4 + 60001;
    let want = 80 * 60001 + 4 * 80 * 60000 + 4 * weights + 80 * 80;
    assert_eq!(fit_bytes(&tall, eighty), Some(8 * want as u128));
    let huge = resolve("classification", &["--layers", "18446744073709551615"])?;
    assert_eq!(
        fit_bytes(
            &huge,
            FitSize {
                features: usize::MAX,
                ..size
            }
        ),
        None
    );
    Ok(())
}

#[test]
fn loaded_networks_are_checked_before_use() -> Result<(), Box<dyn std::error::Error>> {
    let net = Mlp::random(3, &[4], 2, Activation::Sigmoid, OutputActivation::Softmax, 1, 1.0)?;
    assert_eq!(check_network(&net), Ok((3, 2)));
    // Shapes that do not chain, as a crafted file could hold them.
    #[derive(serde::Serialize)]
    struct Raw {
        weights: Vec<Array2<f64>>,
        hidden: Activation,
        output: OutputActivation,
    }
    let raw = Raw {
        weights: vec![net.weights()[0].clone(), Array2::zeros((3, 2))],
        hidden: Activation::Sigmoid,
        output: OutputActivation::Softmax,
    };
    let config = bincode::config::standard();
    let bytes = bincode::serde::encode_to_vec(raw, config)?;
    let (mixed, _): (Mlp, usize) = bincode::serde::decode_from_slice(&bytes, config)?;
    let e = check_network(&mixed).err().unwrap_or_default();
    assert!(e.contains("layer 2 of shape 3×2"), "{e}");
    Ok(())
}
