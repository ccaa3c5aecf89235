"""The iterative models' stopping rules as the estimators expose them (issue
42, "defaults a user can wait for"): B2LD's cycle rule (``tol`` over
``n_iter_no_change`` cycles) and DEC's relative decrease (``tol``)."""

import math

import numpy as np
import pytest

import decomp_nn as d


def data(n=300, features=4, seed=5):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features))
    return x, np.sin(x[:, 0]) + 0.5 * x[:, 1] * x[:, 2]


def objective_after(x, y, cycles, **kw):
    """B2LD's objective after exactly `cycles` cycles (no cycle rule)."""
    est = d.DFNNRegressor((8, 6), tol=0.0, max_iter=cycles, random_state=2, **kw).fit(x, y)
    assert est.n_iter_ == cycles, "the paper's own rules stopped the fit first"
    return est.fit_info_["objective"], est


# A loose rule stops the fit long before B2LD's own per-block rule could; a
# tight one may meet the per-block rule first (either is checked).
@pytest.mark.parametrize("tol, window, by_the_rule", [(0.3, 2, True), (0.03, 3, None)])
def test_the_cycle_rule_stops_at_the_first_window_that_gains_less_than_tol(tol, window, by_the_rule):
    x, y = data()
    ruled = d.DFNNRegressor((8, 6), tol=tol, n_iter_no_change=window, random_state=2).fit(x, y)
    k = ruled.n_iter_
    assert window <= k < d.DEFAULTS["dfnn"]["max_cycles"]
    assert ruled.fit_info_["termination"] == "relative decrease below tolerance"
    f = {c: objective_after(x, y, c)[0] for c in (k - window - 1, k - window, k - 1)}
    f_k, same = objective_after(x, y, k)
    # The rule only truncates the fit: the same cycles, the same network.
    np.testing.assert_array_equal(same.predict(x), ruled.predict(x))
    assert ruled.fit_info_["objective"] == f_k
    if k - 1 >= window:
        assert f[k - window - 1] - f[k - 1] > tol * f[k - 1], "the rule held a cycle earlier"
    held = f[k - window] - f_k <= tol * f_k
    assert held or by_the_rule is None, "the rule holds where the fit stopped"
    if not held:
        # Not the cycle rule: then B2LD's own per-block rule (the same
        # termination) stopped it, and it stops the fit without the cycle
        # rule at the same cycle.
        off = d.DFNNRegressor((8, 6), tol=0.0, random_state=2).fit(x, y)
        assert off.n_iter_ == k and off.fit_info_["termination"] == ruled.fit_info_["termination"]


def test_no_cycle_rule_runs_longer_and_the_defaults_are_the_librarys():
    x, y = data()
    default = d.DFNNRegressor((8, 6), random_state=2).fit(x, y)
    off = d.DFNNRegressor((8, 6), tol=0.0, random_state=2).fit(x, y)
    assert default.n_iter_ <= off.n_iter_
    assert d.DFNNRegressor().get_params()["tol"] == d.DEFAULTS["dfnn"]["tol"] > 0
    assert d.DFNNRegressor().get_params()["n_iter_no_change"] == d.DEFAULTS["dfnn"]["n_iter_no_change"] >= 1
    assert d.DEFAULTS["dfnn"]["max_cycles"] == 200


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(tol=-0.1), "tol"),
        (dict(tol=math.nan), "tol"),
        (dict(tol="small"), "tol"),
        (dict(n_iter_no_change=0), "n_iter_no_change"),
        (dict(n_iter_no_change=2.5), "n_iter_no_change"),
    ],
)
def test_bad_cycle_rules_are_refused_by_name(kw, name):
    x, y = data(50)
    with pytest.raises(ValueError, match=name):
        d.DFNNRegressor((4,), **kw).fit(x, y)


def test_decs_tol_stops_after_a_major_iteration_that_gains_too_little():
    x, y = data()
    full = d.SLFNRegressor(6, trainer="dec:6", random_state=1).fit(x, y)
    assert full.n_iter_ == 6
    # Every decrease is within a tolerance this large: DEC stops at the
    # first check, after its second major iteration.
    loose = d.SLFNRegressor(6, trainer="dec:6", tol=1e9, random_state=1).fit(x, y)
    assert loose.n_iter_ == 2
    tight = d.SLFNRegressor(6, trainer="dec:6", tol=0.0, random_state=1).fit(x, y)
    assert tight.n_iter_ <= 6
    with pytest.raises(ValueError):
        d.SLFNRegressor(6, tol=-1.0).fit(x, y)
