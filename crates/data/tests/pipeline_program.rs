//! The data layer as a Rust program uses it, without the command line
//! (issue 38): load a shipped CSV, fit each kind of model, save the
//! pipeline, load it and predict — and the crate's dependencies hold no
//! clap, no progress bars and no `experiments`.

use models::bls::BlsParams;
use models::{Activation, Dataset as Xy, ElmParams, Fit, ParamGuard, SlfnParams, SlfnTrainer};
use ndarray::Array2;
use nn_data::pipeline::{FittedModel, FittedPipeline, InputScaler, Scale, TaskKind};
use nn_data::{load_shipped, one_hot, train_test_split};

/// Save `model` in a pipeline with `scaler`, load it back, predict `x`:
/// the loaded pipeline's predictions and the in-memory one's.
fn round_trip(model: FittedModel, scaler: InputScaler, x: &Array2<f64>) -> (Vec<f64>, Vec<f64>) {
    let pipeline = FittedPipeline {
        task: TaskKind::Classification,
        classes: Some(2),
        scaler,
        target_scale: None,
        model,
        labels: None,
        columns: None,
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("model.bin");
    pipeline.save(&file).expect("save");
    let loaded = FittedPipeline::load(&file).expect("load");
    (
        loaded.predict(x).expect("predict"),
        pipeline.predict(x).expect("predict"),
    )
}

#[test]
fn load_fit_save_load_predict_with_the_data_layer_and_the_models_only() {
    let pima = load_shipped("pima").expect("the shipped pima set");
    let (train, test) = train_test_split(&pima, 0.25, 11).expect("split");
    let scaler = InputScaler::fit(Scale::Zscore, &train.x).expect("scaler");
    let x = scaler.transform(&train.x).expect("scaled");
    let t = one_hot(&train.y, 2).expect("one-hot");
    let xy = Xy::new(x.view(), t.view());
    let elm = ElmParams::new(30, Activation::Sigmoid)
        .with_seed(1)
        .check()
        .expect("params")
        .fit(&xy)
        .expect("elm");
    let bls = BlsParams::new(3, 5, 40)
        .with_seed(2)
        .check()
        .expect("params")
        .fit(&xy)
        .expect("bls");
    let slfn = SlfnParams::new(8)
        .with_trainer(SlfnTrainer::Dec { maxiter: 2 })
        .with_seed(3)
        .check()
        .expect("params")
        .fit(&xy)
        .expect("slfn");
    for (name, model) in [
        ("elm", FittedModel::Elm(elm)),
        ("bls", FittedModel::Bls(bls)),
        ("slfn", FittedModel::Slfn(slfn)),
    ] {
        let (loaded, in_memory) = round_trip(model, scaler.clone(), &test.x);
        // The file stores every weight exactly (bincode writes the bits), so
        // the loaded pipeline computes the same operations on the same
        // numbers as the one in memory.
        assert_eq!(loaded, in_memory, "{name}");
        assert!(loaded.iter().all(|&c| c == 0.0 || c == 1.0), "{name}: classes");
        let right = loaded.iter().zip(&test.y).filter(|(p, y)| p == y).count();
        // Pima's majority class is 65% of the rows; each model beats chance.
        assert!(
            right as f64 > 0.6 * test.y.len() as f64,
            "{name}: {right} of {}",
            test.y.len()
        );
    }
}

#[test]
fn the_data_layer_needs_no_command_line_crates() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).expect("Cargo.toml");
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table");
    for line in deps
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    {
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        assert!(!["experiments", "indicatif"].contains(&name), "{line}");
        if name == "clap" {
            assert!(line.contains("optional = true"), "clap must stay optional: {line}");
        }
    }
}
