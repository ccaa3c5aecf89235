//! Unit tests of [`super`] (`pipeline.rs`), kept apart from the code.

use super::*;
use models::{Activation, ElmParams, Fit};
use ndarray::array;

/// A format-3 file as the previous build wrote it: the same envelope
/// with a bare `StandardScaler` where format 4 has an `InputScaler`.
#[derive(Serialize)]
struct WrittenV3<'a> {
    task: TaskKind,
    classes: Option<usize>,
    scaler: &'a StandardScaler,
    target_scale: Option<(f64, f64)>,
    model: &'a FittedModel,
}

/// A format-4 file: the fields of format 5 without the class labels.
#[derive(Serialize)]
struct WrittenV4<'a> {
    task: TaskKind,
    classes: Option<usize>,
    scaler: &'a InputScaler,
    target_scale: Option<(f64, f64)>,
    model: &'a FittedModel,
}

/// A format-6 file (checksum, no column names) loads without names, so
/// a header is not checked against them; saved again it is format 7
/// and keeps the names given to it, which `check_columns` then checks.
#[test]
fn format_6_files_load_without_column_names() -> Result<(), Box<dyn std::error::Error>> {
    let x = array![[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [3.0, 5.0]];
    let y = array![[0.5], [1.0], [0.0], [2.0]];
    let scaler = InputScaler::None;
    let model = FittedModel::Elm(ElmParams::new(3, Activation::Tanh).fit(&models::Dataset::new(x.view(), y.view()))?);
    let v6 = (
        TaskKind::Regression,
        None::<usize>,
        &scaler,
        Some((0.0, 1.0)),
        &model,
        None::<ClassLabels>,
    );
    let bytes = models::envelope::encode_checked(PIPELINE_MAGIC, 6, &v6)?;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("v6.model");
    std::fs::write(&path, bytes)?;
    let loaded = FittedPipeline::load(&path)?;
    assert_eq!((loaded.columns.clone(), loaded.n_inputs()), (None, 2));
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let wrong = names(&["p", "q", "y"]);
    assert!(loaded.check_columns(Some(&wrong), &path, &path).is_ok());
    let named = FittedPipeline {
        columns: Some(Columns {
            features: names(&["a", "b"]),
            target: "y".into(),
        }),
        ..loaded
    };
    named.save(&path)?;
    let again = FittedPipeline::load(&path)?;
    assert_eq!(again.columns, named.columns);
    assert!(again.check_columns(Some(&names(&["a", "b"])), &path, &path).is_ok());
    assert!(again
        .check_columns(Some(&names(&["a", "b", "y"])), &path, &path)
        .is_ok());
    assert!(again
        .check_columns(Some(&names(&["a", "b", "z"])), &path, &path)
        .is_ok());
    let e = again
        .check_columns(Some(&names(&["a", "y"])), &path, &path)
        .err()
        .map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("missing `b`")));
    let e = again
        .check_columns(Some(&wrong), &path, &path)
        .err()
        .map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("missing `a`, `b`; not in the model `p`, `q`")));
    Ok(())
}

#[test]
fn format_4_files_load_with_classes_as_labels() -> Result<(), Box<dyn std::error::Error>> {
    let x = array![[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [3.0, 5.0]];
    let y = array![[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
    let scaler = InputScaler::None;
    let model = FittedModel::Elm(ElmParams::new(3, Activation::Tanh).fit(&models::Dataset::new(x.view(), y.view()))?);
    let file = PipelineFile {
        magic: PIPELINE_MAGIC,
        format_version: 4,
        pipeline: WrittenV4 {
            task: TaskKind::Classification,
            classes: Some(2),
            scaler: &scaler,
            target_scale: None,
            model: &model,
        },
    };
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("v4.model");
    std::fs::write(
        &path,
        bincode::serde::encode_to_vec(&file, bincode::config::standard())?,
    )?;
    let loaded = FittedPipeline::load(&path)?;
    assert_eq!(
        (loaded.labels.clone(), loaded.classes, loaded.n_inputs()),
        (None, Some(2), 2)
    );
    let indices: Vec<String> = loaded.predict(&x)?.iter().map(|c| c.to_string()).collect();
    assert_eq!(loaded.predict_labels(&x)?, indices);
    // Saved again, it is format 7 and keeps labels given to it.
    let relabelled = FittedPipeline {
        labels: Some(ClassLabels::Text(vec!["no".into(), "yes".into()])),
        ..loaded
    };
    relabelled.save(&path)?;
    let again = FittedPipeline::load(&path)?;
    assert_eq!(again.labels, relabelled.labels);
    let words = again.predict_labels(&x)?;
    assert!(words.iter().all(|w| w == "no" || w == "yes"), "{words:?}");
    Ok(())
}

#[test]
fn format_3_files_load_as_zscored_pipelines() -> Result<(), Box<dyn std::error::Error>> {
    let x = array![[0.0, 1.0], [1.0, 3.0], [2.0, 2.0], [3.0, 5.0]];
    let y = array![[0.5], [1.0], [0.0], [2.0]];
    let scaler = StandardScaler::fit(&x)?;
    let z = scaler.transform(&x)?;
    let model = FittedModel::Elm(ElmParams::new(3, Activation::Tanh).fit(&models::Dataset::new(z.view(), y.view()))?);
    let file = PipelineFile {
        magic: PIPELINE_MAGIC,
        format_version: 3,
        pipeline: WrittenV3 {
            task: TaskKind::Regression,
            classes: None,
            scaler: &scaler,
            target_scale: Some((1.0, 2.0)),
            model: &model,
        },
    };
    let path = std::env::temp_dir().join(format!("nn-pipeline-v3-{}.model", std::process::id()));
    std::fs::write(
        &path,
        bincode::serde::encode_to_vec(&file, bincode::config::standard())?,
    )?;
    let loaded = FittedPipeline::load(&path)?;
    assert_eq!(loaded.scaler, InputScaler::Zscore(scaler));
    // Independently: the model on the z-scored features, mapped back.
    let FittedModel::Elm(elm) = &model else { unreachable!() };
    let expected: Vec<f64> = elm.predict(z.view())?.column(0).iter().map(|v| v * 2.0 + 1.0).collect();
    assert_eq!(loaded.predict(&x)?, expected);

    let mut bytes = std::fs::read(&path)?;
    bytes[8] = 9; // format version 9 (varint of a small number)
    std::fs::write(&path, bytes)?;
    let e = FittedPipeline::load(&path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("format version 9"), "{e}");
    std::fs::remove_file(&path)?;
    Ok(())
}
