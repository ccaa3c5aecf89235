"""The hidden layer's scale chosen with λ (``select_scales``), λ and the
size in one fit (``select_lambda`` with ``grow_until_val``), and growth
whose step grows with the size (``growth``), issue 42: the choice is the
curve's lowest score, the model the one a plain fit at that scale and λ
gives (numpy's solve on its hidden outputs), the options checked."""

import numpy as np
import pytest

import decomp_nn as d

from test_features import assert_close_to_ridge, data


def lowest(curve):
    scores = [p["score"] for p in curve]
    return curve[int(np.nanargmin(scores))]


def test_elm_scale_is_chosen_with_alpha_and_is_a_plain_fit():
    x, y = data()
    scales = ["unit-variance", 0.05, "inverse-sqrt", 6]
    est = d.ELMRegressor(60, select_lambda="kfold:3", lambda_grid=(1e-6, 1.0, 4), select_scales=scales).fit(x, y)
    sel = est.selection_
    assert len(sel["curve"]) == 4 * 4
    best = lowest(sel["curve"])
    assert sel["score"] == best["score"] and sel["scale_factor"] == best["scale"]
    assert len({p["scale"] for p in sel["curve"]}) == 4
    assert est.weight_scale_ == sel["scale"]
    assert sel["scale"] in ("unit-variance", "0.05", "inverse-sqrt", "6")
    # The model: the ridge solution at the chosen λ on its own hidden layer,
    # and that hidden layer the one of a plain fit at the chosen scale.
    assert_close_to_ridge(est.model_, x, y, est.alpha_)
    plain = d.ELMRegressor(60, weight_scale=sel["scale"], alpha=est.alpha_).fit(x, y)
    np.testing.assert_array_equal(est.model_.hidden_outputs(x), plain.model_.hidden_outputs(x))


def test_bls_shrink_is_chosen():
    x, y = data(n=200)
    est = d.BLSRegressor(2, 4, 20, select_lambda="loo", lambda_grid=(1e-6, 1.0, 3), select_scales=[0.1, 0.8, 5]).fit(
        x, y
    )
    sel = est.selection_
    assert sel["scale_factor"] in (0.1, 0.8, 5.0)
    assert float(est.weight_scale_) == sel["scale_factor"]
    assert sel["score"] == lowest(sel["curve"])["score"]


def test_alpha_then_growth_in_one_fit():
    x, y = data()
    est = d.ELMRegressor(
        200,
        select_lambda="kfold:3",
        lambda_grid=(1e-8, 1.0, 5),
        select_scales=["unit-variance", 0.2],
        grow_until_val=True,
        grow_step=20,
        patience=3,
    ).fit(x, y)
    sel = est.selection_
    assert sel["method"].startswith("kfold:3 + grow-until-val")
    first = lowest(sel["lambda_curve"])
    assert len(sel["lambda_curve"]) == 2 * 5
    assert sel["lambda"] == first["lambda"] == est.alpha_
    assert all(p["lambda"] == first["lambda"] for p in sel["curve"])
    sizes = [p["nodes"] for p in sel["curve"]]
    assert sizes[0] == 20
    assert all(b == min(a + max(20, -(-a // 10)), 200) for a, b in zip(sizes, sizes[1:])), sizes
    assert est.n_hidden_ == lowest(sel["curve"])["nodes"]


def test_growth_zero_is_the_fixed_step():
    x, y = data()
    est = d.ELMRegressor(300, grow_until_val=True, grow_step=20, growth=0, patience=2).fit(x, y)
    sizes = [p["nodes"] for p in est.selection_["curve"]]
    assert sizes == list(range(20, 20 * len(sizes) + 1, 20))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"select_scales": [1, 2]}, "select_scales needs select_lambda"),
        ({"select_lambda": "loo", "select_scales": ["wide"]}, "wide"),
        ({"select_lambda": "loo", "select_scales": [0]}, "scale"),
        ({"select_lambda": "kfold:3", "select_sizes": [10], "grow_until_val": True}, "both choose the size"),
        ({"grow_until_val": True, "growth": -0.5}, "growth"),
    ],
)
def test_selection_options_are_checked(options, message):
    x, y = data(n=100)
    with pytest.raises(ValueError, match=message):
        d.ELMRegressor(20, **options).fit(x, y)
    if "select_scales" in options and options["select_scales"] == ["wide"]:
        with pytest.raises(ValueError, match="shrink"):
            d.BLSRegressor(1, 3, 5, **options).fit(x, y)


def test_auto_is_the_librarys_grid():
    x, y = data(n=200)
    est = d.ELMRegressor(30, select_lambda="loo", lambda_grid=(1e-4, 1.0, 3), select_scales=["auto"]).fit(x, y)
    factors = list(dict.fromkeys(p["scale"] for p in est.selection_["curve"]))
    u = factors[0]
    assert len(factors) == 7
    np.testing.assert_allclose(factors[1:5], [u / 4, u / 2, 2 * u, 4 * u], rtol=1e-15)
    assert factors[5] == 1.0 and factors[6] == pytest.approx(1 / np.sqrt(x.shape[1]), rel=1e-15)
