"""The names a scikit-learn user expects (issue 41, item 4): ``alpha`` for
every penalty weight, ``max_iter`` / ``n_iter_``, ``coef_`` and
``transform`` on the ridge-readout models, ``random_state_``."""

import numpy as np
import pytest

import decomp_nn as d

U = np.finfo(np.float64).eps / 2


def data(n=200, features=4, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    return x, np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2]


@pytest.mark.parametrize("cls", [d.ELMRegressor, d.BLSRegressor, d.ELMClassifier, d.BLSClassifier])
def test_predict_is_transform_times_coef(cls):
    x, y = data()
    classifier = cls in (d.ELMClassifier, d.BLSClassifier)
    target = (y > 0).astype(int) if classifier else y
    est = cls(40) if cls in (d.ELMRegressor, d.ELMClassifier) else cls(3, 5, 30)
    est.fit(x, target)
    h = est.transform(x)
    assert h.shape == (len(x), est.n_hidden_)
    outputs = h @ np.atleast_2d(est.coef_).T
    # The library's A·W and numpy's: each entry a sum of l products, within
    # γ_l·(|A||W|) of the exact one (Higham's bound for a dot product).
    bound = 2 * h.shape[1] * U * (np.abs(h) @ np.abs(np.atleast_2d(est.coef_)).T)
    if classifier:
        # The network's outputs (one per class), computed by the library.
        reference = est.model_.predict(x)
        assert np.all(np.abs(outputs - reference) <= 2 * bound)
        assert est.coef_.shape == (2, est.n_hidden_)
        assert np.array_equal(est.intercept_, np.zeros(2))
    else:
        assert est.coef_.shape == (est.n_hidden_,)
        assert np.all(np.abs(outputs[:, 0] - est.predict(x)) <= 2 * bound[:, 0])
        assert est.intercept_ == 0.0


def test_random_state_none_draws_a_seed_and_records_it():
    x, y = data()
    first = d.ELMRegressor(30, random_state=None).fit(x, y)
    second = d.ELMRegressor(30, random_state=None).fit(x, y)
    assert first.random_state_ != second.random_state_
    again = d.ELMRegressor(30, random_state=first.random_state_).fit(x, y)
    assert again.random_state_ == first.random_state_
    np.testing.assert_allclose(again.predict(x), first.predict(x), rtol=1e-12, atol=1e-12)
    assert np.abs(second.predict(x) - first.predict(x)).max() > 1e-6
    assert d.ELMRegressor(30).fit(x, y).random_state_ == d.DEFAULTS["elm"]["random_state"]


def test_max_iter_bounds_the_iterations_and_n_iter_reports_them():
    x, y = data()
    dfnn = d.DFNNRegressor((6,), max_iter=3, random_state=1).fit(x, y)
    assert 1 <= dfnn.n_iter_ <= 3
    bling = d.DFNNRegressor((6,), trainer="bling", max_iter=2, random_state=1).fit(x, y)
    assert bling.n_iter_ <= 2
    labels = (y > 0).astype(int)
    bpls = d.BPLSClassifier((10,), max_iter=2, random_state=1).fit(x, labels)
    assert bpls.n_iter_ == bpls.fit_info_["epochs"] and 1 <= bpls.n_iter_ <= 3
    # The SLFN: DEC's major iterations, L-BFGS's iterations.
    dec = d.SLFNRegressor(4, trainer="dec", max_iter=2, random_state=1).fit(x, y)
    assert dec.fit_info_["trainer"] == "DEC(2)" and 1 <= dec.n_iter_ <= 2
    lbfgs = d.SLFNRegressor(4, trainer="lbfgs", max_iter=5, random_state=1).fit(x, y)
    assert lbfgs.fit_info_["trainer"] == "lbfgs(5)" and 1 <= lbfgs.n_iter_ <= 5
    assert d.SLFNRegressor(4, trainer="dec:3", random_state=1).fit(x, y).n_iter_ <= 3
    with pytest.raises(ValueError, match="max_iter"):
        d.SLFNRegressor(4, trainer="elm", max_iter=3).fit(x, y)
    with pytest.raises(ValueError):
        d.SLFNRegressor(4, trainer="dec", max_iter=0).fit(x, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda a: d.SLFNRegressor(5, trainer="dec:2", alpha=a, random_state=1),
        lambda a: d.DFNNRegressor((5,), max_iter=5, alpha=a, random_state=1),
        lambda a: d.BPLSRegressor((5,), alpha=a, random_state=1),
    ],
)
def test_alpha_is_the_penalty_weight_of_every_model(make):
    x, y = data()
    light, heavy = make(1e-6).fit(x, y), make(1e6).fit(x, y)
    # A penalty that large leaves the weights near 0: the predictions of
    # every sample nearly the same (these models are not convex in all their
    # weights, so a moderate penalty need not raise the training error).
    assert np.std(heavy.predict(x)) < 0.05 * np.std(light.predict(x))


def test_weight_scale_sets_the_hidden_layers_scale():
    x, y = data()
    default = d.ELMRegressor(20, random_state=1).fit(x, y)
    named = d.ELMRegressor(20, weight_scale="unit-variance", random_state=1).fit(x, y)
    np.testing.assert_array_equal(named.transform(x), default.transform(x))
    for scale in ["inverse-sqrt", 1.0, 0.25]:
        other = d.ELMRegressor(20, weight_scale=scale, random_state=1).fit(x, y)
        assert np.abs(other.transform(x) - default.transform(x)).max() > 1e-6, scale
    bls = d.BLSRegressor(2, 3, 10, random_state=1).fit(x, y)
    assert d.BLSRegressor().weight_scale == d.DEFAULTS["bls"]["weight_scale"] == 0.8
    half = d.BLSRegressor(2, 3, 10, weight_scale=0.5, random_state=1).fit(x, y)
    assert np.abs(half.transform(x) - bls.transform(x)).max() > 1e-6
    with pytest.raises(ValueError, match="input_scale"):
        d.ELMRegressor(5, weight_scale="wide").fit(x, y)
    with pytest.raises(ValueError, match="shrink"):
        d.BLSRegressor(2, 3, 10, weight_scale=-1.0).fit(x, y)
    # partial_fit draws the same layer as fit.
    online = d.ELMRegressor(20, weight_scale=1.0, random_state=1).partial_fit(x, y)
    fixed = d.ELMRegressor(20, weight_scale=1.0, random_state=1).fit(x, y)
    np.testing.assert_array_equal(online.transform(x), fixed.transform(x))
