"""What decomp_nn gives beyond scikit-learn's checks: rows added and
forgotten, nodes added, λ and size selection, pickling through the model
file, errors with the library's messages, the GIL released, BLAS threads,
the version. Each result is compared with an independent computation
(numpy's solve on the model's own hidden outputs) or an exact expectation."""

import pathlib
import pickle
import re
import threading
import time

import numpy as np
import pytest

import decomp_nn as d
from decomp_nn import _core

ROOT = pathlib.Path(__file__).resolve().parents[3]
EPS = np.finfo(np.float64).eps


def data(n=400, features=6, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    y = np.column_stack([x[:, 0] ** 2 + np.sin(x[:, 1]), x[:, 2] * x[:, 3]])
    return x, y


def ridge_by_numpy(a, y, lam):
    """W solving (AᵀA + λI) W = AᵀY, with the condition number of the system."""
    g = a.T @ a + lam * np.eye(a.shape[1])
    return np.linalg.solve(g, a.T @ y), np.linalg.cond(g)


def assert_close_to_ridge(model, x, y, lam):
    """The model's output weights against numpy's solve on the model's own
    hidden outputs: relative error within κ(AᵀA + λI)·l·ε (a backward-stable
    solve's bound, with the sums accumulated in another order)."""
    a = model.hidden_outputs(x)
    w_np, kappa = ridge_by_numpy(a, y, lam)
    w = model.output_weights()
    bound = kappa * a.shape[1] * EPS * 10
    err = np.linalg.norm(w - w_np) / np.linalg.norm(w_np)
    assert err <= bound, f"relative error {err:.2e} above {bound:.2e} (κ = {kappa:.2e})"


@pytest.mark.parametrize("cls", [d.ELMRegressor, d.BLSRegressor])
def test_partial_fit_and_forget_give_the_ridge_solution_of_the_rows_kept(cls):
    x, y = data()
    est = cls(alpha=1e-2) if cls is d.ELMRegressor else cls(4, 5, 50, alpha=1e-2)
    est.partial_fit(x[:150], y[:150])
    est.partial_fit(x[150:300], y[150:300])
    est.partial_fit(x[300:], y[300:])
    assert est.model_.rows == 400
    assert_close_to_ridge(est.model_, x, y, 1e-2)
    est.forget(x[100:250], y[100:250])
    assert est.model_.rows == 250
    kept = np.r_[0:100, 250:400]
    assert_close_to_ridge(est.model_, x[kept], y[kept], 1e-2)
    # A wrong λ in the reference is caught.
    with pytest.raises(AssertionError):
        assert_close_to_ridge(est.model_, x[kept], y[kept], 1e-1)


def test_partial_fit_classifier_needs_classes_and_refuses_unknown_labels():
    x, _ = data()
    labels = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0)
    est = d.ELMClassifier(30)
    with pytest.raises(ValueError, match="classes must be passed"):
        est.partial_fit(x[:100], labels[:100])
    est.partial_fit(x[:100], labels[:100], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels not in classes: \[7\]"):
        est.partial_fit(x[100:110], np.full(10, 7))
    est.partial_fit(x[100:], labels[100:])
    assert est.model_.rows == 400
    one_hot = (labels[:, None] == np.arange(3)[None, :]).astype(float)
    assert_close_to_ridge(est.model_, x, one_hot, d.DEFAULTS["elm"]["alpha"])


def test_partial_fit_after_fit_warns_and_starts_over():
    x, y = data()
    est = d.ELMRegressor(20).fit(x, y)
    with pytest.warns(UserWarning, match="starts a new fit on these rows"):
        est.partial_fit(x[:50], y[:50])
    assert est.model_.rows == 50


def test_forget_needs_a_partial_fit_model():
    x, y = data()
    est = d.ELMRegressor(20).fit(x, y)
    with pytest.raises(ValueError, match="forget needs a model started by partial_fit"):
        est.forget(x[:10], y[:10])


@pytest.mark.parametrize("cls", [d.ELMRegressor, d.BLSRegressor])
def test_add_nodes_grows_to_the_ridge_solution_of_the_larger_network(cls):
    x, y = data()
    if cls is d.ELMRegressor:
        est = cls(30, solver="chol2", alpha=1e-3, growable=True).fit(x, y)
    else:
        est = cls(3, 4, 30, strategy="chol2", alpha=1e-3, growable=True).fit(x, y)
    before = est.n_hidden_
    est.add_nodes(15)
    assert est.n_hidden_ == before + 15
    assert est.model_.hidden_outputs(x).shape == (400, before + 15)
    assert_close_to_ridge(est.model_, x, y, 1e-3)


def test_add_nodes_needs_growable_and_a_count():
    x, y = data()
    est = d.ELMRegressor(20).fit(x, y)
    with pytest.raises(ValueError, match="add_nodes needs a model fitted with growable=True"):
        est.add_nodes(5)
    grow = d.ELMRegressor(20, solver="chol2", growable=True).fit(x, y)
    for bad in [0, -1, 2.5, True]:
        with pytest.raises(ValueError, match="the nodes to add"):
            grow.add_nodes(bad)


def test_a_pickled_growable_model_predicts_the_same_but_no_longer_grows():
    x, y = data()
    est = d.ELMRegressor(20, solver="chol2", growable=True).fit(x, y)
    est.add_nodes(5)
    back = pickle.loads(pickle.dumps(est))
    assert np.array_equal(back.predict(x), est.predict(x))
    assert not back.model_.growable
    with pytest.raises(ValueError, match="growable=True"):
        back.add_nodes(1)


def test_a_pickled_partial_fit_model_continues():
    x, y = data()
    est = d.ELMRegressor(25, alpha=1e-2)
    est.partial_fit(x[:200], y[:200])
    back = pickle.loads(pickle.dumps(est))
    # Loading re-solves the weights from the saved sums: equal to rounding.
    np.testing.assert_allclose(back.predict(x), est.predict(x), rtol=1e-9, atol=1e-12)
    back.partial_fit(x[200:], y[200:])
    assert back.model_.rows == 400
    assert_close_to_ridge(back.model_, x, y, 1e-2)


def test_pickles_are_the_rust_librarys_model_files():
    x, y = data()
    est = d.ELMRegressor(10).fit(x, y)
    raw = est.model_.to_bytes()
    assert raw[:8] == b"DNNELM\0\0"
    again = _core.Model._from_bytes(raw)
    assert np.array_equal(again.predict(x), est.model_.predict(x))
    broken = bytearray(raw)
    broken[-1] ^= 0xFF
    with pytest.raises(ValueError, match="corrupt"):
        _core.Model._from_bytes(bytes(broken))
    with pytest.raises(ValueError, match="not a model file"):
        _core.Model._from_bytes(b"not a model at all")


@pytest.mark.parametrize("method", ["loo", "kfold:4", "val:0.25"])
def test_select_lambda_chooses_the_minimum_of_its_curve(method):
    x, y = data()
    est = d.ELMRegressor(40, select_lambda=method, lambda_grid=(1e-6, 1e1, 8)).fit(x, y)
    curve = est.selection_["curve"]
    assert len(curve) == 8
    scores = np.array([p["score"] for p in curve])
    assert est.alpha_ == curve[int(np.nanargmin(scores))]["lambda"]
    assert est.selection_["method"] == method
    # The model is refitted on every row at the choice: the same hidden
    # layer as a plain fit, weights equal to rounding (the path's solve).
    plain = d.ELMRegressor(40, alpha=est.alpha_).fit(x, y)
    assert np.array_equal(est.model_.hidden_outputs(x), plain.model_.hidden_outputs(x))
    np.testing.assert_allclose(est.predict(x), plain.predict(x), rtol=1e-7, atol=1e-9)


def test_select_sizes_by_kfold_for_the_bls_classifier():
    x, _ = data()
    labels = (x[:, 0] > 0).astype(int)
    est = d.BLSClassifier(3, 4, 40, select_lambda="kfold:3", select_sizes=[22, 37, 52], lambda_grid=(1e-4, 1, 3))
    est.fit(x, labels)
    assert est.selection_["criterion"] == "classification error"
    assert {p["nodes"] for p in est.selection_["curve"]} == {22, 37, 52}
    assert est.n_hidden_ in (22, 37, 52)


def test_grow_until_val_stops_and_keeps_the_best_size():
    x, y = data()
    est = d.ELMRegressor(300, grow_until_val=True, grow_step=20, patience=2).fit(x, y)
    curve = est.selection_["curve"]
    sizes = [p["nodes"] for p in curve]
    # The library's schedule: max(grow_step, 10% of the size) per step.
    assert sizes[0] == 20
    assert all(b == min(a + max(20, -(-a // 10)), 300) for a, b in zip(sizes, sizes[1:])), sizes
    best = curve[int(np.argmin([p["score"] for p in curve]))]["nodes"]
    assert est.n_hidden_ == best
    assert est.selection_["stopped"] in ("patience", "maxnodes")


def test_selection_options_are_checked():
    x, y = data()
    with pytest.raises(ValueError, match="select_lambda = cv is not admissible"):
        d.ELMRegressor(select_lambda="cv").fit(x, y)
    with pytest.raises(ValueError, match="select_sizes needs"):
        d.ELMRegressor(select_sizes=[10]).fit(x, y)


def test_errors_carry_the_librarys_messages():
    x, y = data()
    with pytest.raises(ValueError, match=re.escape("lambda = -1 is not admissible: the ridge parameter must be finite and > 0")):
        d.ELMRegressor(alpha=-1).fit(x, y)
    with pytest.raises(ValueError, match="unknown activation"):
        d.ELMRegressor(activation="softplus").fit(x, y)
    with pytest.raises(ValueError, match="unknown strategy `fast`"):
        d.BLSRegressor(strategy="fast").fit(x, y)
    with pytest.raises(ValueError, match="trainer = adam is not admissible"):
        d.DFNNRegressor(trainer="adam").fit(x, y)
    # A computation that fails on admissible input is a RuntimeError.
    with pytest.raises(RuntimeError, match="not positive definite"):
        d.ELMRegressor(50, alpha=1e-300).fit(x[:10], y[:10])


def test_the_gil_is_released_during_a_fit():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20000, 50))
    y = rng.normal(size=20000)
    est = d.ELMRegressor(600, n_jobs=1)
    started = time.perf_counter()
    worker = threading.Thread(target=est.fit, args=(x, y))
    ticks = 0
    worker.start()
    while worker.is_alive():
        ticks += 1
    fit_seconds = time.perf_counter() - started
    worker.join()
    assert fit_seconds > 0.1, "the fit is too short to tell"
    # Holding the GIL, the fit would let this loop run only at its start
    # and end; released, the loop runs all along (millions of ticks a second).
    assert ticks > 10000 * fit_seconds, f"{ticks} ticks in {fit_seconds:.2f} s"


def test_n_jobs_sets_the_blas_threads_for_the_call_only():
    x, y = data()
    before = _core.blas_threads()
    d.ELMRegressor(20, n_jobs=1).fit(x, y)
    assert _core.blas_threads() == before
    with pytest.raises(ValueError, match="n_jobs = 0 is not admissible"):
        d.ELMRegressor(20, n_jobs=0).fit(x, y)


def test_inputs_of_any_layout_are_read_as_they_are():
    x, y = data()
    est = d.ELMRegressor(30).fit(x, y)
    c = est.predict(x)
    views = {
        "Fortran order": np.asfortranarray(x),
        "strided columns": np.repeat(x, 2, axis=1)[:, ::2],
        "strided rows": np.repeat(x, 2, axis=0)[::2],
        "reversed rows": np.ascontiguousarray(x[::-1])[::-1],
    }
    for name, view in views.items():
        assert np.array_equal(view, x) and not view.flags["C_CONTIGUOUS"], name
        # BLAS may round a product of another layout differently: equal to rounding.
        np.testing.assert_allclose(est.predict(view), c, rtol=1e-13, atol=1e-13, err_msg=name)
    # Another dtype is converted (float64) and predicts the same.
    np.testing.assert_array_equal(est.predict(x.astype(np.float32)), est.predict(x.astype(np.float32).astype(np.float64)))


def test_the_version_is_the_workspaces():
    cargo = (ROOT / "Cargo.toml").read_text()
    version = re.search(r'\[workspace\.package\][^\[]*?version\s*=\s*"([^"]+)"', cargo, re.S).group(1)
    assert d.__version__ == version


def test_defaults_are_the_librarys():
    assert d.ELMRegressor().alpha == d.DEFAULTS["elm"]["alpha"] == 0.1
    assert d.BLSClassifier().alpha == 2.0**-30
    assert d.BLSClassifier().strategy == "chol2"
    assert d.SLFNRegressor().trainer == "dec:10"
    assert d.SLFNRegressor().alpha == d.DEFAULTS["slfn"]["tau_lambda"] == 1e-3
    assert d.BPLSClassifier().max_iter == d.DEFAULTS["bpls"]["max_iterations"] == 39


@pytest.mark.parametrize("layout", ["C", "F"])
def test_float64_samples_are_not_copied_on_the_way_to_rust(layout):
    """numpy's allocations are traced by tracemalloc (Rust's are not): a
    copy of X by the wrapper, however made, would show as a peak of X's
    size. Fortran order is read in place too."""
    import tracemalloc

    rng = np.random.default_rng(2)
    x = np.asarray(rng.normal(size=(20000, 50)), order=layout)
    y = rng.normal(size=20000)
    est = d.ELMRegressor(20)
    tracemalloc.start()
    try:
        est.fit(x, y)
        est.predict(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < x.nbytes / 4, f"peak of {peak} bytes traced against X's {x.nbytes}"
    # The check can fail: a copy is seen.
    tracemalloc.start()
    try:
        np.array(x, copy=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= x.nbytes


def test_bpls_takes_a_softmax_hidden_layer():
    """Tomic et al.'s "softmax activation functions" read for the hidden
    layer: accepted by name, fitted on three separated blobs, and an
    activation BPLS cannot invert is refused with the admissible names."""
    rng = np.random.default_rng(4)
    centers = np.array([[3.0, 0.0], [-1.5, 2.6], [-1.5, -2.6]])
    labels = np.repeat(np.arange(3), 60)
    x = centers[labels] + 0.7 * rng.normal(size=(180, 2))
    est = d.BPLSClassifier(hidden_layer_sizes=(8,), activation="softmax").fit(x, labels)
    assert est.score(x, labels) > 0.9
    proba = est.predict_proba(x)
    assert np.allclose(proba.sum(axis=1), 1.0, rtol=0, atol=10 * EPS)
    with pytest.raises(ValueError, match="softmax"):
        d.BPLSClassifier(activation="relu").fit(x, labels)
