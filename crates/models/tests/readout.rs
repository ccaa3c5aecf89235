//! The output layer ([`Readout`]) against independent solves, its names, and
//! the validated hyper-parameters: every `check()` error names the parameter.

mod common;

use common::{at_b, fro, fro_diff, gauss_solve, ridge_tolerance, rng};
use linalg_core::ridge::Strategy;
use linalg_core::Precision;
use models::bls::BlsParams;
use models::elm::lstsq::lstsq;
use models::prelude::*;
use models::{Activation, ElmParams, IncrementalElm, ModelError, Readout, ReadoutSolver};
use ndarray::{s, Array2};

/// A well-conditioned hidden matrix `A` (K×n) and targets `Y` (K×M).
fn problem(seed: u64, k: usize, n: usize, m: usize) -> (Array2<f64>, Array2<f64>) {
    let mut rng = rng(seed);
    (rng.gaussian(k, n), rng.gaussian(k, m))
}

/// Ridge by the plain-loop normal equations `(AᵀA + λI) W = AᵀY` (Gaussian
/// elimination): independent of BLAS and LAPACK.
fn normal_equations(a: &Array2<f64>, y: &Array2<f64>, lambda: f64) -> Array2<f64> {
    let mut r = at_b(a.view(), a.view());
    for i in 0..r.nrows() {
        r[[i, i]] += lambda;
    }
    gauss_solve(r.view(), at_b(a.view(), y.view()).view())
}

/// Batch ridge and every strategy solved in one batch give the ridge
/// solution within the forward-error bound; the bound is far below ‖W‖, so
/// the comparison can fail.
#[test]
fn batch_solves_equal_the_normal_equations() {
    let (a, y) = problem(1, 60, 12, 3);
    let lambda = 1e-2;
    let w = normal_equations(&a, &y, lambda);
    let tol = 2.0 * ridge_tolerance(a.view(), y.view(), w.view(), lambda, 1, 1);
    assert!(tol < 1e-8 * fro(w.view()), "bound {tol:e} too loose to test");
    let solvers = [ReadoutSolver::Ridge]
        .into_iter()
        .chain(Strategy::ALL.into_iter().map(ReadoutSolver::Strategy));
    for solver in solvers {
        let got = Readout::new(solver, lambda).solve(a.clone(), y.view()).expect("solve");
        let err = fro_diff(got.view(), w.view());
        assert!(err <= tol, "{solver}: ‖W − W*‖ = {err:.3e} > {tol:.3e}");
    }
}

/// Least squares ignores λ and equals the pure-Rust rank-revealing QR, also
/// on a rank-deficient `A` (a repeated column: the minimum-norm solution).
#[test]
fn least_squares_equals_the_reference_qr() {
    let (b, y) = problem(2, 40, 5, 2);
    let a = ndarray::concatenate![ndarray::Axis(1), b, b.slice(s![.., ..1])];
    let reference = lstsq(a.view(), y.view()).expect("reference");
    assert_eq!(reference.rank, 5);
    let got = Readout::new(ReadoutSolver::Lstsq, -1.0)
        .solve(a.clone(), y.view())
        .expect("λ is not used");
    let err = fro_diff(got.view(), reference.solution.view());
    assert!(err <= 1e-10 * fro(reference.solution.view()), "differs by {err:e}");
    assert_eq!(Readout::new(ReadoutSolver::Lstsq, 0.3).fitted_lambda(), 0.0);
}

/// A started solver holds the batch solution on the first block and, after
/// an append, the ridge solution on all the columns; ridge grows as D-Rdg.
#[test]
fn started_solvers_grow_to_the_batch_solution() {
    let (a, y) = problem(3, 50, 10, 2);
    let lambda = 1e-1;
    let w = normal_equations(&a, &y, lambda);
    let tol = 4.0 * ridge_tolerance(a.view(), y.view(), w.view(), lambda, 2, 1);
    for solver in [ReadoutSolver::Ridge, ReadoutSolver::Strategy(Strategy::Chol2)] {
        let readout = Readout::new(solver, lambda);
        let mut grown = readout.start(a.slice(s![.., ..6]).to_owned(), y.view()).expect("start");
        assert_eq!(Some(grown.strategy()), solver.strategy());
        grown.append(a.slice(s![.., 6..])).expect("append");
        let err = fro_diff(grown.weights(), w.view());
        assert!(err <= tol, "{solver}: {err:e} > {tol:e}");
    }
    assert_eq!(
        Readout::new(ReadoutSolver::Strategy(Strategy::Alg3), 0.5)
            .with_precision(Precision::F32)
            .start(a.clone(), y.view())
            .expect("f32 store")
            .precision(),
        Precision::F32
    );
}

#[test]
fn readout_errors_name_the_parameter() {
    let (a, y) = problem(4, 20, 4, 1);
    for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        for solver in [ReadoutSolver::Ridge, ReadoutSolver::Strategy(Strategy::Chol1)] {
            let readout = Readout::new(solver, lambda);
            assert!(matches!(
                readout.check(),
                Err(ModelError::InvalidParameter { name: "lambda", .. })
            ));
            assert!(matches!(
                readout.solve(a.clone(), y.view()),
                Err(ModelError::InvalidParameter { name: "lambda", .. })
            ));
        }
    }
    assert!(matches!(
        Readout::new(ReadoutSolver::Lstsq, 1.0).start(a.clone(), y.view()),
        Err(ModelError::InvalidParameter { name: "solver", .. })
    ));
}

/// The names the command line and the saved files use.
#[test]
fn solver_names_round_trip() {
    for (name, solver) in [
        ("ridge", ReadoutSolver::Ridge),
        ("lstsq", ReadoutSolver::Lstsq),
        ("pinv", ReadoutSolver::Lstsq),
        ("d-rdg", ReadoutSolver::Strategy(Strategy::DRdg)),
        ("Chol-2", ReadoutSolver::Strategy(Strategy::Chol2)),
        ("li-et-al", ReadoutSolver::Strategy(Strategy::LiEtAl)),
    ] {
        assert_eq!(name.parse::<ReadoutSolver>().ok(), Some(solver), "{name}");
    }
    for s in Strategy::ALL {
        assert_eq!(ReadoutSolver::Strategy(s).to_string(), s.cli_name());
    }
    assert!(matches!(
        "qr".parse::<ReadoutSolver>(),
        Err(ModelError::UnknownSolver(name)) if name == "qr"
    ));
}

/// Every inadmissible ELM or BLS parameter is refused by `check()` with its
/// name; the defaults are the documented ones.
#[test]
fn check_names_every_inadmissible_parameter() {
    let elm = ElmParams::new(5, Activation::Sigmoid);
    assert!(elm.check().is_ok());
    for (bad, name) in [
        (elm.with_nodes(0), "nodes"),
        (elm.with_lambda(0.0), "lambda"),
        (elm.with_lambda(f64::NAN), "lambda"),
    ] {
        let got = bad.check();
        assert!(
            matches!(got, Err(ModelError::InvalidParameter { name: n, .. }) if n == name),
            "{name}: {got:?}"
        );
    }
    let err = elm.with_lambda(-2.0).check().expect_err("λ < 0");
    assert_eq!(
        err.to_string(),
        "lambda = -2 is not admissible: the ridge parameter must be finite and > 0"
    );

    let bls = BlsParams::new(2, 3, 4);
    assert!(bls.check().is_ok());
    for (bad, name) in [
        (bls.with_solver(ReadoutSolver::Lstsq), "solver"),
        (
            BlsParams::new(usize::MAX, 2, 1),
            "feature_groups × feature_nodes + enhancement_nodes",
        ),
        (bls.with_lambda(-1.0), "lambda"),
        (bls.with_shrink(f64::INFINITY), "shrink"),
        (bls.with_sparse_mu(f64::NAN), "sparse_mu"),
        (bls.with_admm_iterations(0), "admm_iterations"),
    ] {
        let got = bad.check();
        assert!(
            matches!(got, Err(ModelError::InvalidParameter { name: n, .. }) if n == name),
            "{name}: {got:?}"
        );
    }
    // Least squares has no incremental form: an incremental ELM refuses it.
    let (x, y) = problem(5, 30, 2, 1);
    let lstsq = elm
        .with_solver(ReadoutSolver::Lstsq)
        .check()
        .expect("valid for a batch fit");
    assert!(matches!(
        IncrementalElm::start(&lstsq, &Dataset::new(x.view(), y.view())),
        Err(ModelError::InvalidParameter { name: "solver", .. })
    ));

    // The defaults: Zhu & Wei's λ for the ELM, 2⁻³⁰ (Chen & Liu's C) and Chol-2 for the BLS.
    let elm = elm.check().expect("valid");
    assert_eq!((elm.lambda(), elm.solver(), elm.seed()), (0.1, ReadoutSolver::Ridge, 0));
    let bls = BlsParams::default().check().expect("valid");
    assert_eq!(bls.lambda(), 2f64.powi(-30));
    assert_eq!(bls.readout().solver(), ReadoutSolver::Strategy(Strategy::Chol2));
    assert_eq!(
        (bls.feature_groups(), bls.feature_nodes(), bls.enhancement_nodes()),
        (10, 10, 1000)
    );
}

/// Saved ELM files encode the solver by variant index (ridge 0, lstsq 1, a
/// strategy 2 then the strategy's index), as `elm::Solver` did in format
/// version 1: files saved before the readout existed still load.
#[test]
fn solver_encoding_is_that_of_format_version_1() {
    let encode = |s: ReadoutSolver| bincode::serde::encode_to_vec(s, bincode::config::standard()).expect("encode");
    assert_eq!(encode(ReadoutSolver::Ridge), [0]);
    assert_eq!(encode(ReadoutSolver::Lstsq), [1]);
    for (i, s) in Strategy::ALL.into_iter().enumerate() {
        assert_eq!(encode(ReadoutSolver::Strategy(s)), [2, i as u8], "{s}");
    }
}
