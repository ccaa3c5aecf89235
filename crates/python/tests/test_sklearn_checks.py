"""scikit-learn's own estimator checks, on every estimator of decomp_nn.

Each estimator is checked as a user constructs it (the library's defaults).
Every check applies and passes: EXPECTED_FAILED is empty. scikit-learn
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
EXPECTED_FAILED = {}


def expected_failed_checks(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
