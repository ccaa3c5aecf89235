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

import warnings

from . import _blas_kernel


def _load_core():
    from . import _core

    return _core


# OpenBLAS chooses its kernel when it is loaded: set the one for this CPU
# first where the library would fall back to a generic one (issue 37).
_core = _blas_kernel.load_with_chosen_kernel(_load_core)

from ._base import DEFAULTS  # noqa: E402
from .estimators import (  # noqa: E402
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


def blas_info():
    """The BLAS library the estimators run: a dict with ``library``,
    ``config`` (version and build), ``kernel`` (OpenBLAS's kernel set, e.g.
    ``SkylakeX``), ``chosen_by`` (``library``: OpenBLAS from the CPUs it
    knows; ``environment``: ``OPENBLAS_CORETYPE`` was set; ``chosen``: this
    package, from the CPU, see ``decomp_nn._blas_kernel``) and
    ``slow_kernel`` (the CPU's vector units the kernel leaves unused, e.g.
    ``"AVX-512"``, or ``None``)."""
    info = dict(_core.blas_info())
    if _blas_kernel.chosen is not None:
        info["chosen_by"] = "chosen"
    return info


def _warn_of_a_slow_kernel():
    info = blas_info()
    if info["slow_kernel"] is not None:
        warnings.warn(
            f"OpenBLAS runs its {info['kernel']} kernel, which leaves this CPU's "
            f"{info['slow_kernel']} unused: BLAS runs at a fraction of its speed; "
            "OPENBLAS_CORETYPE (set before decomp_nn is imported) chooses another",
            RuntimeWarning,
            stacklevel=3,
        )


_warn_of_a_slow_kernel()

__all__ = [
    "DEFAULTS",
    "blas_info",
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
