"""``scipy.sparse`` samples for the ELM and the BLS (issue 41, item 4): the
sparse fit against the dense fit of the same values, every sparse format,
weights, pickling, and the refusals.

The bound of every comparison is the one ``test_sample_weight.py`` uses for
a ridge solve whose sums run in another order: the sparse kernel sums a
row's stored entries where the DGEMM sums all of its columns, so the two
hidden matrices differ by rounding, and the two output weights by at most
``cond(AᵀA + λI)·l·ε·10`` relative (twice that between two such solves).
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import decomp_nn as d

EPS = np.finfo(np.float64).eps
LAMBDA = 1e-3


def data(n=400, features=60, density=0.1, seed=3):
    """Sparse samples (about ``density`` stored, columns of different
    scales), dense targets, and class labels from them."""
    rng = np.random.default_rng(seed)
    mask = rng.uniform(size=(n, features)) < density
    x = np.where(mask, rng.normal(size=(n, features)) * np.logspace(-1, 1, features), 0.0)
    y = np.column_stack([np.tanh(x[:, :30].sum(axis=1)), np.sin(x[:, 30:].sum(axis=1))])
    labels = np.argmax(x[:, :3] @ np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [-1.0, 0.0, 1.0]]), axis=1)
    return x, y, labels


def readout_bound(model, x, y, w=None):
    """The relative error of the model's output weights against numpy's
    solve of the (weighted) normal equations on the model's own hidden
    outputs of the dense ``x``, and the bound ``cond·l·ε·10``."""
    w = np.ones(len(x)) if w is None else w
    a = model.hidden_outputs(x)
    g = a.T @ (w[:, None] * a) + LAMBDA * np.eye(a.shape[1])
    expected = np.linalg.solve(g, a.T @ (w[:, None] * y))
    err = np.linalg.norm(model.output_weights() - expected) / np.linalg.norm(expected)
    return err, np.linalg.cond(g) * a.shape[1] * EPS * 10


REGRESSORS = [
    lambda: d.ELMRegressor(40, alpha=LAMBDA, activation="relu", random_state=5),
    lambda: d.ELMRegressor(40, alpha=LAMBDA, random_state=5),
    lambda: d.BLSRegressor(3, 5, 30, alpha=LAMBDA, random_state=5),
]


@pytest.mark.parametrize("make", REGRESSORS)
def test_the_sparse_fit_is_the_dense_fit_within_the_readout_bound(make):
    x, y, _ = data()
    dense = make().fit(x, y)
    sparse = make().fit(sp.csr_matrix(x), y)
    err, bound = readout_bound(sparse.model_, x, y)
    assert err <= bound, f"{err:.2e} > {bound:.2e}"
    w_dense = dense.model_.output_weights()
    diff = np.linalg.norm(sparse.model_.output_weights() - w_dense) / np.linalg.norm(w_dense)
    assert diff <= 2 * bound, f"{diff:.2e} > {2 * bound:.2e}"
    # Predicting sparse samples is predicting the dense ones (the same
    # hidden matrix up to rounding, so within the same relative bound).
    p_dense = dense.predict(x)
    p_sparse = dense.predict(sp.csr_matrix(x))
    assert np.linalg.norm(p_sparse - p_dense) <= 2 * bound * np.linalg.norm(p_dense)
    # transform is the hidden layer the readout multiplies: predict is
    # transform @ coef_.T, two products of l terms (2·γ_l·|A||W| apart).
    t = dense.transform(sp.csr_matrix(x))
    l = t.shape[1]
    gamma = l * EPS / 2 / (1 - l * EPS / 2)
    scale = np.abs(t) @ np.abs(dense.coef_.T)
    assert np.all(np.abs(t @ dense.coef_.T - p_sparse.reshape(t.shape[0], -1)) <= 2 * gamma * scale)


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil", "dok", "bsr"])
def test_every_sparse_format_is_read_as_its_csr(fmt):
    x, y, _ = data(n=150)
    csr = sp.csr_matrix(x)
    other = csr.asformat(fmt)
    for make in REGRESSORS:
        a, b = make().fit(csr, y), make().fit(other, y)
        # The same CSR (sorted indices) reaches the same computation.
        np.testing.assert_array_equal(a.model_.output_weights(), b.model_.output_weights())
        np.testing.assert_array_equal(a.predict(other), a.predict(csr))
    arr = sp.csr_array(x)
    np.testing.assert_array_equal(make().fit(arr, y).predict(arr), make().fit(csr, y).predict(csr))


@pytest.mark.parametrize("make", [lambda: d.ELMClassifier(40, alpha=LAMBDA), lambda: d.BLSClassifier(3, 5, 30, alpha=LAMBDA)])
def test_classifiers_take_sparse_samples(make):
    x, _, labels = data()
    dense = make().fit(x, labels)
    sparse = make().fit(sp.csr_matrix(x), labels)
    scores_d = dense.decision_function(x)
    scores_s = sparse.decision_function(sp.csr_matrix(x))
    assert scores_s.shape == scores_d.shape
    # Labels agree wherever the two best scores are apart by more than the
    # scores' own differences (the rounding between the two fits).
    top2 = np.sort(scores_d, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > 2 * np.abs(scores_s - scores_d).max()
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(x))[clear], dense.predict(x)[clear])
    # So the accuracies differ by at most the share of rows too close to call.
    assert abs(sparse.score(sp.csc_matrix(x), labels) - dense.score(x, labels)) <= (~clear).mean()


def test_weights_and_sparse_samples_together():
    x, y, _ = data()
    w = np.random.default_rng(4).uniform(0.0, 2.0, size=len(x))
    w[::5] = 0.0
    for make in REGRESSORS:
        sparse = make().fit(sp.csr_matrix(x), y, sample_weight=w)
        err, bound = readout_bound(sparse.model_, x, y, w)
        assert err <= bound, f"{err:.2e} > {bound:.2e}"
        dense = make().fit(x, y, sample_weight=w)
        w_dense = dense.model_.output_weights()
        diff = np.linalg.norm(sparse.model_.output_weights() - w_dense) / np.linalg.norm(w_dense)
        assert diff <= 2 * bound


def test_a_sparse_fit_pickles():
    x, y, _ = data(n=120)
    est = d.BLSRegressor(2, 4, 20, alpha=LAMBDA).fit(sp.csr_matrix(x), y)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(sp.csr_matrix(x)), est.predict(sp.csr_matrix(x)))


def test_what_sparse_samples_are_not_for():
    x, y, labels = data(n=120)
    xs = sp.csr_matrix(x)
    for est in [
        d.ELMRegressor(20, growable=True),
        d.ELMRegressor(20, select_lambda="loo"),
        d.BLSRegressor(2, 4, 20, grow_until_val=True),
    ]:
        with pytest.raises(ValueError, match="sparse X is taken by the plain fit only"):
            est.fit(xs, y)
    # The other models take dense samples only: scikit-learn's own refusal.
    for est in [d.SLFNRegressor(), d.DFNNRegressor(), d.BPLSRegressor()]:
        with pytest.raises(TypeError, match="[Ss]parse"):
            est.fit(xs, y)
    # Rows are added to a fit as dense arrays.
    with pytest.raises(TypeError, match="[Ss]parse"):
        d.ELMClassifier(20).partial_fit(xs, labels, classes=np.unique(labels))
    # A malformed matrix reaching the library is a ValueError naming it.
    from decomp_nn import _core

    model = d.ELMRegressor(5).fit(x, y).model_
    with pytest.raises(ValueError, match="sparse matrix"):
        model.predict_sparse(
            (2, 60), np.array([0, 1, 1], dtype=np.int64), np.array([60], dtype=np.int64), np.array([1.0])
        )
    with pytest.raises(ValueError, match="negative"):
        _core.fit_elm_sparse(
            (1, 2),
            np.array([0, 1], dtype=np.int64),
            np.array([-1], dtype=np.int64),
            np.array([1.0]),
            np.zeros((1, 1)),
            n_hidden=3,
            activation="sigmoid",
            alpha=1.0,
            solver="ridge",
            random_state=0,
        )
