"""scikit-learn's own estimator checks, on every estimator of decomp_nn.

Each estimator is checked as a user constructs it (the library's defaults).
Every check applies and passes but one, listed in EXPECTED_FAILED with its
reason: the BLS's weighted fit equals the fit on repeated rows only up to
the rounding its default (nearly unregularized) alpha amplifies. scikit-learn
itself skips one check per estimator, `check_array_api_input`, unless the
environment sets SCIPY_ARRAY_API=1: it feeds array-API namespaces (torch,
cupy, array-api-strict) to estimators that declare array-API support, which
these do not (their arrays go to the Rust engine as float64 numpy arrays);
pytest lists it under "skipped" with scikit-learn's reason. The checks on
pandas data frames run because `cargo xtask test` installs pandas.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import decomp_nn as d

ESTIMATORS = [
    d.ELMRegressor(),
    d.ELMClassifier(),
    d.BLSRegressor(),
    d.BLSClassifier(),
    d.SLFNRegressor(),
    d.SLFNClassifier(),
    d.DFNNRegressor(),
    d.DFNNClassifier(),
    d.BPLSRegressor(),
    d.BPLSClassifier(),
]

# check name -> reason, per estimator class name.
_BLS_WEIGHTS = (
    "the BLS's default alpha = 2**-30 leaves the readout's normal equations so ill-conditioned that the "
    "weighted fit and the fit on repeated rows, equal in exact arithmetic, differ by rounding beyond the "
    "check's rtol of 1e-7 (max. relative 1e-4); the same check passes at alpha = 1e-3 "
    "(test_sample_weight.py::test_scikit_learns_weight_equivalence_holds_for_a_regularized_bls)"
)
_BLS_WEIGHT_CHECKS = {
    # The sparse variant (the estimators take scipy.sparse samples) fails for the same reason.
    "check_sample_weight_equivalence_on_dense_data": _BLS_WEIGHTS,
    "check_sample_weight_equivalence_on_sparse_data": _BLS_WEIGHTS,
}
EXPECTED_FAILED = {
    "BLSRegressor": _BLS_WEIGHT_CHECKS,
    "BLSClassifier": _BLS_WEIGHT_CHECKS,
}


def expected_failed_checks(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
