"""``sample_weight`` of the ELM estimators (issue 41, item 4): the weighted
ridge solution, what repeating rows fits, and the refusals."""

import numpy as np
import pytest

import decomp_nn as d

EPS = np.finfo(np.float64).eps


def data(n=300, features=5, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    y = np.column_stack([np.sin(x[:, 0]) + x[:, 1] ** 2, x[:, 2] * x[:, 3]])
    return x, y


def weighted_ridge_error(model, x, y, w, lam):
    """The model's output weights against numpy's solve of
    (AᵀDA + λI) W = AᵀDY on the model's own hidden outputs, relative, and
    the bound κ(AᵀDA + λI)·l·ε·10 of a backward-stable solve whose sums run
    in another order."""
    a = model.hidden_outputs(x)
    g = a.T @ (w[:, None] * a) + lam * np.eye(a.shape[1])
    expected = np.linalg.solve(g, a.T @ (w[:, None] * y))
    err = np.linalg.norm(model.output_weights() - expected) / np.linalg.norm(expected)
    return err, np.linalg.cond(g) * a.shape[1] * EPS * 10


@pytest.mark.parametrize(
    "make", [lambda: d.ELMRegressor(40, alpha=1e-3), lambda: d.BLSRegressor(3, 5, 30, alpha=1e-3)]
)
def test_the_output_weights_solve_the_weighted_normal_equations(make):
    x, y = data()
    w = np.random.default_rng(2).uniform(0.0, 3.0, size=len(x))
    w[::7] = 0.0
    est = make().fit(x, y, sample_weight=w)
    err, bound = weighted_ridge_error(est.model_, x, y, w, 1e-3)
    assert err <= bound, f"{err:.2e} > {bound:.2e}"
    # The unweighted solution is far from it: the check sees the weights.
    err_plain, _ = weighted_ridge_error(make().fit(x, y).model_, x, y, w, 1e-3)
    assert err_plain > 1e3 * bound


def test_integer_weights_predict_as_the_repeated_rows():
    x, y = data()
    counts = np.arange(len(x)) % 3  # 0, 1, 2
    weighted = d.ELMRegressor(30, alpha=1e-2).fit(x, y, sample_weight=counts.astype(float))
    repeated = d.ELMRegressor(30, alpha=1e-2).fit(np.repeat(x, counts, axis=0), np.repeat(y, counts, axis=0))
    # Both solve one system in exact arithmetic (the hidden layer's scale
    # included): their output weights agree within the solve's bound.
    err, bound = weighted_ridge_error(weighted.model_, x, y, counts.astype(float), 1e-2)
    assert err <= bound
    w_rep = repeated.model_.output_weights()
    diff = np.linalg.norm(weighted.model_.output_weights() - w_rep) / np.linalg.norm(w_rep)
    assert diff <= 2 * bound, f"{diff:.2e} > {2 * bound:.2e}"


def test_the_classifier_takes_weights_too():
    x, _ = data()
    labels = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5)
    w = np.where(labels == 2, 5.0, 1.0)
    plain = d.ELMClassifier(30).fit(x, labels)
    weighted = d.ELMClassifier(30).fit(x, labels, sample_weight=w)
    # Weighting class 2 up makes it predicted more often, on the same data.
    assert (weighted.predict(x) == 2).sum() > (plain.predict(x) == 2).sum()


@pytest.mark.parametrize(
    "weights, message",
    [
        (-np.ones(300), "Negative values in data passed to `sample_weight`"),
        (np.ones(299), "sample_weight.shape == \\(299,\\), expected \\(300,\\)"),
        (np.zeros(300), "Sample weights must contain at least one non-zero number"),
    ],
)
def test_bad_weights_are_refused(weights, message):
    x, y = data()
    with pytest.raises(ValueError, match=message):
        d.ELMRegressor(10).fit(x, y, sample_weight=weights)


@pytest.mark.parametrize("cls", [d.ELMRegressor, d.BLSRegressor])
@pytest.mark.parametrize("option", [{"select_lambda": "loo"}, {"grow_until_val": True}, {"growable": True}])
def test_weights_are_refused_where_the_fit_does_not_take_them(cls, option):
    x, y = data()
    with pytest.raises(ValueError, match="sample_weight is taken by the plain fit only"):
        cls(**option).fit(x, y, sample_weight=np.ones(len(x)))


@pytest.mark.parametrize("cls", [d.BLSRegressor, d.BLSClassifier])
def test_scikit_learns_weight_equivalence_holds_for_a_regularized_bls(cls):
    """scikit-learn's own check (weights vs repeated rows, rtol 1e-7), which
    the BLS's default alpha = 2**-30 fails by rounding alone (see
    test_sklearn_checks.EXPECTED_FAILED), passes with a ridge parameter that
    keeps the readout well conditioned."""
    from sklearn.utils.estimator_checks import (
        check_sample_weight_equivalence_on_dense_data,
        check_sample_weight_equivalence_on_sparse_data,
    )

    check_sample_weight_equivalence_on_dense_data(cls.__name__, cls(alpha=1e-3))
    check_sample_weight_equivalence_on_sparse_data(cls.__name__, cls(alpha=1e-3))


@pytest.mark.parametrize(
    "make",
    [
        lambda: d.ELMRegressor(30, alpha=1e-2, random_state=3),
        lambda: d.BLSRegressor(2, 4, 20, alpha=1e-2, random_state=3),
    ],
)
def test_partial_fit_and_forget_take_weights(make):
    x, y = data()
    w = np.random.default_rng(5).uniform(0.0, 2.0, size=len(x))
    w[::6] = 0.0
    online = make()
    online.partial_fit(x[:150], y[:150], sample_weight=w[:150])
    online.partial_fit(x[150:], y[150:], sample_weight=w[150:])
    # The readout is the weighted ridge solution on every row so far, on
    # the hidden layer the first batch drew.
    err, bound = weighted_ridge_error(online.model_, x, y, w, 1e-2)
    assert err <= bound, f"{err:.2e} > {bound:.2e}"
    err_plain, _ = weighted_ridge_error(online.model_, x, y, np.ones(len(x)), 1e-2)
    assert err_plain > 1e3 * bound
    # Forgetting the second batch with its weights leaves the first batch's.
    online.forget(x[150:], y[150:], sample_weight=w[150:])
    err, bound = weighted_ridge_error(online.model_, x[:150], y[:150], w[:150], 1e-2)
    assert err <= bound, f"{err:.2e} > {bound:.2e}"
    # A batch of zero weights adds nothing.
    before = online.model_.output_weights().copy()
    online.partial_fit(x[:10], y[:10], sample_weight=np.zeros(10))
    np.testing.assert_array_equal(online.model_.output_weights(), before)
