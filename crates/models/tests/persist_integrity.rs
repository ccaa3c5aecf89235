//! Saved models resist damage: every single-byte change of a small saved ELM
//! and BLS is refused (the CRC-32 of format 2), trailing bytes and
//! truncations are refused with a message that says so, files of format 1
//! (before the checksum) still load, and no byte string — arbitrary or a
//! mutated valid file — makes loading panic or allocate beyond its size.

use models::bls::{Bls, BlsParams};
use models::envelope::CHECKSUM_MISMATCH;
use models::prelude::*;
use models::{Activation, Elm, ElmParams, ModelError};
use ndarray::Array2;
use proptest::prelude::*;
use test_support::FlipCounts;

fn inputs() -> Array2<f64> {
    Array2::from_shape_fn((12, 2), |(i, j)| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0)
}

fn targets(x: &Array2<f64>) -> Array2<f64> {
    Array2::from_shape_fn((x.nrows(), 1), |(i, _)| x[[i, 0]] * x[[i, 1]] + 0.5)
}

fn small_elm() -> Elm {
    let x = inputs();
    ElmParams::new(3, Activation::Tanh)
        .with_seed(5)
        .fit(&Dataset::new(x.view(), targets(&x).view()))
        .expect("fit")
}

fn small_bls() -> Bls {
    let x = inputs();
    BlsParams::new(1, 2, 3)
        .with_lambda(1e-3)
        .with_seed(5)
        .fit(&Dataset::new(x.view(), targets(&x).view()))
        .expect("fit")
}

/// [`test_support::flip_every_byte`] decoding with [`Persist::from_bytes`]
/// and predicting with `predict`.
fn flip_every_byte<M: Persist>(bytes: &[u8], predict: impl Fn(&M) -> Option<Array2<f64>>) -> FlipCounts {
    test_support::flip_every_byte(bytes, |b| M::from_bytes(b).map(|m| predict(&m)))
}

/// Every single-byte change of `model`'s file is refused (none loads, not
/// even with the same predictions).
fn assert_every_change_refused<M: Persist + Predict>(name: &str, model: &M) {
    let x = inputs();
    let bytes = model.to_bytes().expect("encode");
    let counts = flip_every_byte::<M>(&bytes, |m| m.predict(x.view()).ok());
    assert_eq!(counts.changes, bytes.len() * 255);
    assert_eq!(counts.different_predictions, 0, "{counts:?}");
    assert_eq!(counts.refused, counts.changes, "{counts:?}");
    eprintln!(
        "{name}: {} of {} single-byte changes refused",
        counts.refused, counts.changes
    );
}

#[test]
fn every_single_byte_change_of_a_saved_elm_is_refused() {
    assert_every_change_refused("ELM", &small_elm());
}

#[test]
fn every_single_byte_change_of_a_saved_bls_is_refused() {
    assert_every_change_refused("BLS", &small_bls());
}

#[test]
fn save_writes_what_to_bytes_gives_and_load_reads_it_back() {
    let elm = small_elm();
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("elm.bin");
    elm.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(bytes, elm.to_bytes().expect("encode"));
    assert_eq!(Elm::load(&path).expect("load"), elm);
    assert_eq!(Elm::from_bytes(&bytes).expect("decode"), elm);
    // Magic, version 2 (one varint byte), then the 4 checksum bytes.
    assert_eq!(bytes[..8], models::elm::io::MAGIC);
    assert_eq!(bytes[8], 2);
}

fn corrupt_reason(got: Result<impl std::fmt::Debug, ModelError>) -> String {
    match got {
        Err(ModelError::Corrupt { reason, .. }) => reason,
        other => panic!("expected a corrupt-file error, got {other:?}"),
    }
}

#[test]
fn damage_truncation_and_trailing_bytes_are_named() {
    let bytes = small_bls().to_bytes().expect("encode");
    // A damaged byte in the middle of the model.
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x10;
    assert_eq!(corrupt_reason(Bls::from_bytes(&damaged)), CHECKSUM_MISMATCH);
    // Every truncation after the version byte.
    for cut in 9..bytes.len() {
        let reason = corrupt_reason(Bls::from_bytes(&bytes[..cut]));
        assert_eq!(reason, CHECKSUM_MISMATCH, "cut at {cut}");
    }
    // Bytes appended to an intact file.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0, 1, 2]);
    assert_eq!(
        corrupt_reason(Bls::from_bytes(&longer)),
        "3 trailing byte(s) after the model"
    );
    // The message the user sees.
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("damaged.bin");
    std::fs::write(&path, &damaged).expect("write");
    let message = Bls::load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    assert_eq!(
        message,
        format!(
            "{}: model file is corrupt: checksum mismatch (file damaged or truncated)",
            path.display()
        )
    );
}

/// A format-1 file as the previous build wrote it: magic, version 1, model.
#[derive(serde::Serialize)]
struct FormatOne<'a, M> {
    magic: [u8; 8],
    format_version: u32,
    model: &'a M,
}

/// `model`'s file in format 1 (no checksum), as builds before format 2
/// wrote it.
fn format_one<M: serde::Serialize>(magic: [u8; 8], model: &M) -> Vec<u8> {
    let file = FormatOne {
        magic,
        format_version: 1,
        model,
    };
    bincode::serde::encode_to_vec(file, bincode::config::standard()).expect("encode")
}

#[test]
fn format_1_files_without_checksum_still_load() {
    let elm = small_elm();
    let old = format_one(models::elm::io::MAGIC, &elm);
    assert_eq!(old.len() + 4, elm.to_bytes().expect("encode").len());
    assert_eq!(Elm::from_bytes(&old).expect("format 1 loads"), elm);
    let mut longer = old.clone();
    longer.push(0);
    assert_eq!(
        corrupt_reason(Elm::from_bytes(&longer)),
        "1 trailing byte(s) after the model"
    );

    let bls = small_bls();
    let old = format_one(models::bls::io::MAGIC, &bls);
    assert_eq!(Bls::from_bytes(&old).expect("format 1 loads"), bls);
}

/// The flip count has teeth: without the checksum (format 1) many
/// single-byte changes load and predict differently.
#[test]
fn without_the_checksum_single_byte_changes_go_unnoticed() {
    let elm = small_elm();
    let x = inputs();
    let old = format_one(models::elm::io::MAGIC, &elm);
    let counts = flip_every_byte::<Elm>(&old, |m| m.predict(x.view()).ok());
    eprintln!("ELM format 1: {counts:?}");
    assert!(counts.different_predictions > counts.changes / 10, "{counts:?}");
}

/// A file whose first array claims 2^60 rows: refused, nothing allocated.
#[test]
fn a_huge_length_prefix_is_refused() {
    let bytes = small_elm().to_bytes().expect("encode");
    // The model starts after magic (8), version (1) and checksum (4); its
    // first field is the hidden layer's input weights, an ndarray whose
    // serialized form begins with a version byte and the shape.
    for at in 13..bytes.len().min(40) {
        let mut huge = bytes[..at].to_vec();
        huge.push(253); // varint tag of a u64
        huge.extend_from_slice(&(1u64 << 60).to_le_bytes());
        huge.extend_from_slice(&bytes[at..]);
        assert!(Elm::from_bytes(&huge).is_err(), "u64 2^60 inserted at {at}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes behind the right magic and version: an error, never
    /// a panic.
    #[test]
    fn arbitrary_bytes_are_an_error_not_a_panic(version in 0u8..4, body in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = models::elm::io::MAGIC.to_vec();
        bytes.push(version);
        bytes.extend_from_slice(&body);
        prop_assert!(Elm::from_bytes(&bytes).is_err());
        bytes[..8].copy_from_slice(&models::bls::io::MAGIC);
        prop_assert!(Bls::from_bytes(&bytes).is_err());
    }

    /// Mutations of valid format-2 files (overwritten bytes, inserted
    /// bytes, a cut end): anything changed is refused by the checksum.
    #[test]
    fn mutated_format_2_files_are_refused(
        cut in any::<prop::sample::Index>(),
        writes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        insert in proptest::option::of((any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 1..10))),
        bls in any::<bool>(),
    ) {
        let original = if bls { small_bls().to_bytes() } else { small_elm().to_bytes() }.expect("encode");
        let mut bytes = original.clone();
        test_support::mutate(&mut bytes, writes, insert, cut);
        let loaded = if bls { Bls::from_bytes(&bytes).is_ok() } else { Elm::from_bytes(&bytes).is_ok() };
        prop_assert_eq!(loaded, bytes == original);
    }

    /// Mutations of a valid format-1 file (no checksum to stop them): cut,
    /// bytes overwritten, bytes inserted. Loading returns, with an error or
    /// a model, and never panics; a loaded model predicts.
    #[test]
    fn mutated_format_1_files_never_panic(
        cut in any::<prop::sample::Index>(),
        writes in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        insert in proptest::option::of((any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 1..10))),
    ) {
        let elm = small_elm();
        let mut bytes = bincode::serde::encode_to_vec(
            FormatOne { magic: models::elm::io::MAGIC, format_version: 1, model: &elm },
            bincode::config::standard(),
        ).expect("encode");
        test_support::mutate(&mut bytes, writes, insert, cut);
        if let Ok(m) = Elm::from_bytes(&bytes) {
            let x = inputs();
            let _ = m.predict(x.view());
        }
    }
}

/// The header checks of [`Persist::load`] for `model`'s type: its magic and
/// version are where the layout says; another model's magic, an unknown
/// version, a short file and a missing file are typed errors; every cut of
/// the file and trailing bytes are [`ModelError::Corrupt`].
fn header_and_length_errors_are_typed<M: Persist + std::fmt::Debug>(model: &M, other_magic: [u8; 8]) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("model.bin");
    let write = |bytes: &[u8]| std::fs::write(&path, bytes).expect("write");
    model.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read back");
    assert_eq!(bytes[..8], M::MAGIC);
    // The version follows the magic as a one-byte varint.
    assert_eq!(u32::from(bytes[8]), M::FORMAT_VERSION);

    let mut wrong_magic = bytes.clone();
    wrong_magic[..8].copy_from_slice(&other_magic);
    write(&wrong_magic);
    assert!(matches!(M::load(&path), Err(ModelError::BadMagic { found, .. }) if found == other_magic));
    let mut wrong_version = bytes.clone();
    wrong_version[8] = 9;
    write(&wrong_version);
    let got = M::load(&path);
    assert!(
        matches!(got, Err(ModelError::UnsupportedFormat { found: 9, expected, .. }) if expected == M::FORMAT_VERSION),
        "{got:?}"
    );
    write(&bytes[..4]);
    assert!(matches!(M::load(&path), Err(ModelError::BadMagic { .. })));
    // Every cut after the magic (9..len): header or body incomplete.
    for cut in (9..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        write(&bytes[..cut]);
        let got = M::load(&path);
        assert!(matches!(got, Err(ModelError::Corrupt { .. })), "cut at {cut}: {got:?}");
    }
    write(&[&bytes[..], &[0, 1, 2]].concat());
    assert!(matches!(M::load(&path), Err(ModelError::Corrupt { .. })));
    std::fs::remove_file(&path).expect("remove");
    assert!(matches!(M::load(&path), Err(ModelError::Io { .. })));
}

#[test]
fn header_and_length_errors_of_an_elm_file_are_typed() {
    header_and_length_errors_are_typed(&small_elm(), models::bls::io::MAGIC);
}

#[test]
fn header_and_length_errors_of_a_bls_file_are_typed() {
    header_and_length_errors_are_typed(&small_bls(), models::elm::io::MAGIC);
}

fn small_dfnn() -> models::dfnn::Dfnn {
    use models::dfnn::{Bias, Dfnn, DfnnTrainer, FullLbfgs};
    let x = inputs();
    let mut net = Dfnn::random(2, &[3, 1], Bias::Every, 5, models::dfnn::INIT_SCALE).expect("network");
    let trainer = DfnnTrainer::Lbfgs(FullLbfgs {
        max_iterations: 5,
        ..FullLbfgs::default()
    });
    net.fit(x.view(), targets(&x).view(), 1e-4, &trainer, |_| {
        std::ops::ControlFlow::Continue(())
    })
    .expect("fit");
    net
}

#[test]
fn every_single_byte_change_of_a_saved_dfnn_is_refused() {
    assert_every_change_refused("DFNN", &small_dfnn());
}

#[test]
fn header_and_length_errors_of_a_dfnn_file_are_typed() {
    header_and_length_errors_are_typed(&small_dfnn(), *b"DNNELM\0\0");
}

#[test]
fn a_dfnn_with_inconsistent_layers_is_corrupt() {
    let net = small_dfnn();
    let mut weights = net.weights().to_vec();
    weights[1] = Array2::zeros((1, 7));
    // Encode the inconsistent network through a copy of the same shape.
    #[derive(serde::Serialize)]
    struct Raw {
        weights: Vec<Array2<f64>>,
        bias: models::dfnn::Bias,
    }
    let bytes = models::envelope::encode_checked(
        models::dfnn::MAGIC,
        <models::dfnn::Dfnn as Persist>::FORMAT_VERSION,
        &Raw {
            weights,
            bias: net.bias(),
        },
    )
    .expect("encode");
    let reason = corrupt_reason(models::dfnn::Dfnn::from_bytes(&bytes));
    assert!(reason.contains("layer weights"), "{reason}");
}

/// A model loaded from its bytes predicts bit for bit as the model fitted
/// (the Python package pickles through these bytes). Sizes large enough for
/// BLAS to take its blocked paths, where a weight matrix stored in another
/// layout than loading gives would round differently (as BPLS's did).
#[test]
fn a_loaded_model_predicts_bit_for_bit_as_the_fitted_one() {
    use models::mlp::{BplsAlgorithm, BplsParams, OutputActivation};
    let x = Array2::from_shape_fn((300, 5), |(i, j)| (((i * 37 + j * 11) % 97) as f64 / 48.0 - 1.0) * 1.3);
    let y = Array2::from_shape_fn((300, 2), |(i, j)| (x[[i, j]] * x[[i, j + 1]]).sin());
    let labels = Array2::from_shape_fn((300, 2), |(i, j)| f64::from(u8::from((x[[i, 0]] > 0.0) == (j == 0))));
    let data = Dataset::new(x.view(), y.view());
    fn same<M: Persist + Predict>(name: &str, model: &M, x: &Array2<f64>) {
        let loaded = M::from_bytes(&model.to_bytes().expect("encode")).expect("decode");
        let (a, b) = (
            model.predict(x.view()).expect("predict"),
            loaded.predict(x.view()).expect("predict"),
        );
        let differ = a.iter().zip(&b).filter(|(p, q)| p.to_bits() != q.to_bits()).count();
        assert_eq!(
            differ,
            0,
            "{name}: {differ} of {} outputs differ after loading",
            a.len()
        );
    }
    same(
        "ELM",
        &ElmParams::new(100, Activation::Sigmoid).fit(&data).expect("fit"),
        &x,
    );
    same("BLS", &BlsParams::new(3, 4, 60).fit(&data).expect("fit"), &x);
    same("SLFN", &models::SlfnParams::new(10).fit(&data).expect("fit"), &x);
    same("DFNN", &small_dfnn(), &inputs());
    let regression = BplsParams::new(vec![100]).fit(&data).expect("fit");
    same("BPLS regression", &regression, &x);
    let classifier = BplsParams::new(vec![100])
        .with_output(OutputActivation::Softmax)
        .with_algorithm(BplsAlgorithm::NonInjective { max_iterations: 5 })
        .fit(&Dataset::new(x.view(), labels.view()))
        .expect("fit");
    same("BPLS classifier", &classifier, &x);
}
