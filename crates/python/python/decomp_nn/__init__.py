"""decomp_nn: neural networks trained by decomposition and closed-form least
squares, as scikit-learn estimators over a Rust engine.

- ``ELMRegressor``, ``ELMClassifier``: extreme learning machine (Zhu & Wei's
  inverse-free incremental updates among its solvers); ``partial_fit`` and
  ``forget`` (rows), ``add_nodes`` (nodes), λ and size selection.
- ``BLSRegressor``, ``BLSClassifier``: broad learning system (Zhu et al.'s
  ridge solutions), with the same extras.
- ``SLFNRegressor``, ``SLFNClassifier``: Grippo, Manno & Sciandrone's network
  (DEC, L-BFGS, ELM trainers).
- ``DFNNRegressor``, ``DFNNClassifier``: Palagi & Seccia's deep network (B2LD,
  L-BFGS, BLInG, IG).
- ``BPLSRegressor``, ``BPLSClassifier``: Tomic et al.'s closed-form
  layer-by-layer least squares.

Every number is computed by the Rust library (``decomp_nn._core``); models
pickle through the library's versioned model file.
"""

from . import _core
from ._base import DEFAULTS
from .estimators import (
    BLSClassifier,
    BLSRegressor,
    BPLSClassifier,
    BPLSRegressor,
    DFNNClassifier,
    DFNNRegressor,
    ELMClassifier,
    ELMRegressor,
    SLFNClassifier,
    SLFNRegressor,
)

__version__ = _core.__version__

__all__ = [
    "DEFAULTS",
    "ELMRegressor",
    "ELMClassifier",
    "BLSRegressor",
    "BLSClassifier",
    "SLFNRegressor",
    "SLFNClassifier",
    "DFNNRegressor",
    "DFNNClassifier",
    "BPLSRegressor",
    "BPLSClassifier",
]
