"""The estimators: one regressor and one classifier per model, each a thin
shell over one ``decomp_nn._core.fit_*`` function. Every default value is
the Rust library's (``DEFAULTS``, read from ``_core.defaults()``)."""

import math

import numpy as np
import scipy.sparse as sp

from ._base import DEFAULTS, _Classifier, _csr_parts, _Growable, _Regressor, _RidgeReadout, _Updatable
from . import _core

_ELM_D = DEFAULTS["elm"]
_BLS_D = DEFAULTS["bls"]
_SLFN_D = DEFAULTS["slfn"]
_DFNN_D = DEFAULTS["dfnn"]
_BPLS_D = DEFAULTS["bpls"]


def _ridge_options(est, classification):
    """What the ELM's and the BLS's fits share: the seed, the task, growth,
    the λ and size selection, the threads."""
    return dict(
        random_state=est._seed(),
        classification=classification,
        growable=est.growable,
        select_lambda=est.select_lambda,
        lambda_grid=None if est.lambda_grid is None else tuple(est.lambda_grid),
        select_sizes=None if est.select_sizes is None else [int(s) for s in est.select_sizes],
        select_scales=None if est.select_scales is None else [str(s) for s in est.select_scales],
        grow_until_val=est.grow_until_val,
        grow_step=est.grow_step,
        growth=est.growth,
        patience=est.patience,
        max_hidden=est.max_hidden,
        val_fraction=est.val_fraction,
        n_jobs=est.n_jobs,
    )


class _ELM(_RidgeReadout, _Updatable, _Growable):
    def __init__(
        self,
        n_hidden=_ELM_D["n_hidden"],
        *,
        activation=_ELM_D["activation"],
        alpha=_ELM_D["alpha"],
        solver=_ELM_D["solver"],
        weight_scale=_ELM_D["weight_scale"],
        random_state=_ELM_D["random_state"],
        growable=False,
        select_lambda=None,
        lambda_grid=None,
        select_sizes=None,
        select_scales=None,
        grow_until_val=False,
        grow_step=None,
        growth=None,
        patience=None,
        max_hidden=None,
        val_fraction=None,
        n_jobs=None,
    ):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.solver = solver
        self.weight_scale = weight_scale
        self.random_state = random_state
        self.growable = growable
        self.select_lambda = select_lambda
        self.lambda_grid = lambda_grid
        self.select_sizes = select_sizes
        self.select_scales = select_scales
        self.grow_until_val = grow_until_val
        self.grow_step = grow_step
        self.growth = growth
        self.patience = patience
        self.max_hidden = max_hidden
        self.val_fraction = val_fraction
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit to samples ``X`` (K x N) and targets or class labels ``y``,
        each sample's squared error weighted by ``sample_weight`` (K,
        >= 0; None: all 1): the output weights minimize
        ``sum_k w_k ||y_k - h(x_k) W||^2 + alpha ||W||^2``, so integer weights
        fit what repeating the rows fits and a 0 weight what leaving the row
        out fits. Weights are taken by the plain fit, not with ``growable``,
        ``select_lambda`` or ``grow_until_val``. ``X`` may be a
        ``scipy.sparse`` matrix (any format, used as CSR; plain fit only):
        the hidden layer's product is then computed from the stored
        entries, and predict and transform take sparse samples too. Returns
        ``self``."""
        return self._fit(X, y, sample_weight)

    def _fit_model(self, X, Y, classification, sample_weight=None):
        if sp.issparse(X):
            self._refuse_sparse_options()
            return _core.fit_elm_sparse(
                *_csr_parts(X),
                Y,
                n_hidden=self.n_hidden,
                activation=self.activation,
                alpha=self.alpha,
                solver=self.solver,
                random_state=self._seed(),
                n_jobs=self.n_jobs,
                sample_weight=sample_weight,
                weight_scale=str(self.weight_scale),
            )
        return _core.fit_elm(
            X,
            Y,
            n_hidden=self.n_hidden,
            activation=self.activation,
            alpha=self.alpha,
            solver=self.solver,
            sample_weight=sample_weight,
            weight_scale=str(self.weight_scale),
            **_ridge_options(self, classification),
        )

    def _start_kwargs(self):
        return dict(
            kind="elm",
            n_hidden=self.n_hidden,
            activation=self.activation,
            alpha=self.alpha,
            random_state=self._seed(),
            weight_scale=str(self.weight_scale),
        )


_ELM_DOC = """Extreme learning machine{what}: ``n_hidden`` random hidden nodes of
    ``activation``, output weights by ``solver`` with ridge parameter
    ``alpha`` (λ of Zhu & Wei).

    Parameters
    ----------
    n_hidden : int, default {n_hidden}
        Hidden nodes.
    activation : str, default "{activation}"
        sigmoid, tanh, sine, hardlim, tribas, radbas, relu, linear (or the
        MATLAB names).
    alpha : float, default {alpha}
        λ, the ridge parameter of the output weights.
    solver : str, default "{solver}"
        ``ridge`` (Cholesky of AᵀA + λI), ``lstsq`` (minimum-norm least
        squares) or an incremental strategy of the engine (``chol2``,
        ``r-inv``, ``d-rdg``, ``alg1``, ``alg2``, ``alg3``, ...).
    weight_scale : str or float, default "{weight_scale}"
        The input weights' scale s (uniform on [-s, s)): ``unit-variance``
        (√(3 / mean ‖x‖²), unit pre-activation variance on the training
        rows), ``inverse-sqrt`` (1/√N) or a number (1: MATLAB ELM's).
    random_state : int, RandomState or None, default {random_state}
        Seed of the hidden layer.
    growable : bool, default False
        Keep the incremental solver (``solver`` a strategy; ``ridge`` grows
        by D-Rdg, the direct ridge update) so that ``add_nodes(q)`` grows the
        fitted network exactly.
    select_lambda : {{"loo", "kfold:K", "val:FRAC"}} or None
        Choose λ on ``lambda_grid`` by leave-one-out (every λ from one
        eigendecomposition), k-fold cross-validation or a held-out fraction;
        the chosen λ is ``alpha_``, the curve ``selection_``.
    lambda_grid : (lo, hi, n) or None
        ``n`` values log-spaced from ``lo`` to ``hi`` (default: the
        library's, 21 values from 1e-8 to 1e2).
    select_sizes : list of int or None
        Sizes to try with ``kfold:K`` or ``val:FRAC`` (each ≤ ``n_hidden``).
    select_scales : list of str or float, or None
        Scales to try with ``select_lambda`` (each one more hidden layer;
        values as ``weight_scale`` takes them): the best (scale, λ, size) is
        kept; ``selection_["scale"]`` names it, each curve point has its
        ``scale`` as a number.
    grow_until_val : bool, default False
        Grow from ``grow_step`` nodes, each step adding ``grow_step`` nodes
        or ``growth`` times the size, whichever is more, until the error on
        a held-out ``val_fraction`` has not improved for ``patience`` steps
        or ``max_hidden`` (default ``n_hidden``) is reached; keep the best
        size (``n_hidden_``). With ``select_lambda``: λ (and the scale) are
        chosen first on the ``n_hidden`` network, then growth runs at them
        (``selection_["lambda_curve"]`` holds the first stage's curve).
    grow_step, growth, patience, max_hidden, val_fraction : optional
        Growth's options (defaults: the library's, 10, 0.1, 5, n_hidden, 0.2).
    n_jobs : int or None
        Threads during fit and predict, all of them: OpenBLAS's, the
        library's own kernels' and its parallel loops' (None: OpenBLAS's
        default, every core; -1: every core).

    Attributes
    ----------
    model_ : decomp_nn._core.Model
        The fitted network (pickled through the library's model file).
    n_hidden_ : int
        Hidden nodes of the fitted network.
    alpha_, selection_ : with ``select_lambda`` or ``grow_until_val``
        The chosen λ, and the selection's report (method, criterion, score,
        curve, seconds).
    """


class ELMRegressor(_ELM, _Regressor):
    __doc__ = _ELM_DOC.format(what=" for regression", **_ELM_D)


class ELMClassifier(_ELM, _Classifier):
    __doc__ = _ELM_DOC.format(what=" for classification (one-hot targets)", **_ELM_D)


class _BLS(_RidgeReadout, _Updatable, _Growable):
    def __init__(
        self,
        feature_groups=_BLS_D["feature_groups"],
        feature_nodes=_BLS_D["feature_nodes"],
        enhancement_nodes=_BLS_D["enhancement_nodes"],
        *,
        alpha=_BLS_D["alpha"],
        strategy=_BLS_D["strategy"],
        weight_scale=_BLS_D["weight_scale"],
        random_state=_BLS_D["random_state"],
        growable=False,
        select_lambda=None,
        lambda_grid=None,
        select_sizes=None,
        select_scales=None,
        grow_until_val=False,
        grow_step=None,
        growth=None,
        patience=None,
        max_hidden=None,
        val_fraction=None,
        n_jobs=None,
    ):
        self.feature_groups = feature_groups
        self.feature_nodes = feature_nodes
        self.enhancement_nodes = enhancement_nodes
        self.alpha = alpha
        self.strategy = strategy
        self.weight_scale = weight_scale
        self.random_state = random_state
        self.growable = growable
        self.select_lambda = select_lambda
        self.lambda_grid = lambda_grid
        self.select_sizes = select_sizes
        self.select_scales = select_scales
        self.grow_until_val = grow_until_val
        self.grow_step = grow_step
        self.growth = growth
        self.patience = patience
        self.max_hidden = max_hidden
        self.val_fraction = val_fraction
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Fit to samples ``X`` (K x N) and targets or class labels ``y``,
        each sample weighted by ``sample_weight`` (K, >= 0; None: all 1): the
        sparse autoencoder's sums, the feature and enhancement scalings
        (over the rows of weight > 0) and the ridge readout all weighted, so
        integer weights fit what repeating the rows fits. Not with
        ``growable``, ``select_lambda`` or ``grow_until_val``. ``X`` may be
        a ``scipy.sparse`` matrix (any format, used as CSR; plain fit only):
        the feature groups' products with it are computed from the stored
        entries. Returns ``self``."""
        return self._fit(X, y, sample_weight)

    def _fit_model(self, X, Y, classification, sample_weight=None):
        if sp.issparse(X):
            self._refuse_sparse_options()
            return _core.fit_bls_sparse(
                *_csr_parts(X),
                Y,
                feature_groups=self.feature_groups,
                feature_nodes=self.feature_nodes,
                enhancement_nodes=self.enhancement_nodes,
                alpha=self.alpha,
                strategy=self.strategy,
                random_state=self._seed(),
                n_jobs=self.n_jobs,
                sample_weight=sample_weight,
                weight_scale=float(self.weight_scale),
            )
        return _core.fit_bls(
            X,
            Y,
            feature_groups=self.feature_groups,
            feature_nodes=self.feature_nodes,
            enhancement_nodes=self.enhancement_nodes,
            alpha=self.alpha,
            strategy=self.strategy,
            sample_weight=sample_weight,
            weight_scale=float(self.weight_scale),
            **_ridge_options(self, classification),
        )

    def _start_kwargs(self):
        return dict(
            kind="bls",
            feature_groups=self.feature_groups,
            feature_nodes=self.feature_nodes,
            enhancement_nodes=self.enhancement_nodes,
            alpha=self.alpha,
            random_state=self._seed(),
            weight_scale=str(float(self.weight_scale)),
        )


_BLS_DOC = """Broad learning system{what} (Chen & Liu; Zhu et al.'s ridge
    solutions): ``feature_groups`` groups of ``feature_nodes`` feature nodes
    (random maps fine-tuned by a sparse autoencoder), ``enhancement_nodes``
    enhancement nodes, output weights by the incremental ``strategy`` with
    ridge parameter ``alpha``.

    Parameters
    ----------
    feature_groups, feature_nodes, enhancement_nodes : int, default {feature_groups}, {feature_nodes}, {enhancement_nodes}
    alpha : float, default {alpha}
        λ (2⁻³⁰, the BLS papers').
    strategy : str, default "{strategy}"
        The engine's strategy: ``chol2``, ``chol1``, ``r-inv``, ``d-rdg``,
        ``orig``, ``exg-e``, ...
    weight_scale : float, default {weight_scale}
        The enhancement nodes' shrink scale (Chen's 0.8): their inputs are
        scaled so that the largest is ``weight_scale`` before ``tanh``.
    random_state : int, RandomState or None, default {random_state}
    growable : bool, default False
        Keep the solver and the data so that ``add_nodes(q)`` adds ``q``
        enhancement nodes exactly (Zhu et al.'s increments).
    select_lambda, lambda_grid, select_sizes, select_scales, grow_until_val,
    grow_step, growth, patience, max_hidden, val_fraction : as for
        ``ELMRegressor`` (sizes are all nodes; scales are shrink scales;
        growth starts from the BLS's size, ``max_hidden`` defaults to that
        size + 100 steps).
    n_jobs : int or None
        BLAS threads (None: OpenBLAS's default).
    """


class BLSRegressor(_BLS, _Regressor):
    __doc__ = _BLS_DOC.format(what=" for regression", **_BLS_D)


class BLSClassifier(_BLS, _Classifier):
    __doc__ = _BLS_DOC.format(what=" for classification", **_BLS_D)


class _SLFN:
    def __init__(
        self,
        n_hidden=_SLFN_D["n_hidden"],
        *,
        trainer=_SLFN_D["trainer"],
        alpha=_SLFN_D["tau_lambda"],
        alpha_hidden=None,
        max_iter=None,
        tol=_SLFN_D["tol"],
        random_state=_SLFN_D["random_state"],
        n_jobs=None,
    ):
        self.n_hidden = n_hidden
        self.trainer = trainer
        self.alpha = alpha
        self.alpha_hidden = alpha_hidden
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _trainer(self):
        """The trainer with ``max_iter`` as its count (``dec:K``, ``lbfgs:K``)."""
        if self.max_iter is None:
            return self.trainer
        name = str(self.trainer).split(":")[0]
        if name == "elm" or isinstance(self.max_iter, bool) or not isinstance(self.max_iter, (int, np.integer)):
            raise ValueError(
                f"max_iter = {self.max_iter!r} is not admissible with trainer {self.trainer!r}: an int >= 1 for "
                "dec and lbfgs (the ELM has no iterations)"
            )
        return f"{name}:{int(self.max_iter)}"

    def _fit_model(self, X, Y, classification):
        return _core.fit_slfn(
            X,
            Y,
            n_hidden=self.n_hidden,
            trainer=self._trainer(),
            tau_lambda=self.alpha,
            tau_w=self.alpha_hidden,
            tol=None if self.tol is None else float(self.tol),
            random_state=self._seed(),
            n_jobs=self.n_jobs,
        )


_SLFN_DOC = """Single-hidden-layer network{what} of Grippo, Manno & Sciandrone:
    ``n_hidden`` sigmoid neurons, trained by ``trainer``.

    Parameters
    ----------
    n_hidden : int, default {n_hidden}
    trainer : str, default "{trainer}"
        ``dec`` (DEC(10): exact output weights, then each neuron by Armijo
        and L-BFGS), ``dec:K``, ``lbfgs`` (lbfgs(1000) on all weights),
        ``lbfgs:K``, or ``elm`` (random neurons, least-squares output).
    alpha : float, default {tau_lambda}
        τ_λ, the output weights' regularization (the paper's name).
    alpha_hidden : float or None
        τ_w, the neurons' regularization (None: the paper's rule).
    max_iter : int or None
        DEC's major iterations or L-BFGS's iterations, replacing the
        trainer's count (``dec`` with ``max_iter=2`` is ``dec:2``); None:
        the trainer's. ``n_iter_`` reports the iterations run.
    tol : float or None, default {tol}
        DEC stops after a major iteration that decreased the objective by
        at most ``tol·max{{E, 1}}`` (lbfgs: L-BFGS's relative-decrease
        test); None: only ``max_iter`` stops it, as in the paper.
    random_state : int, RandomState or None, default {random_state}
    n_jobs : int or None
    """


class SLFNRegressor(_SLFN, _Regressor):
    __doc__ = _SLFN_DOC.format(what=" for regression", **_SLFN_D)


class SLFNClassifier(_SLFN, _Classifier):
    __doc__ = _SLFN_DOC.format(what=" for classification", **_SLFN_D)


class _DFNN:
    def __init__(
        self,
        hidden_layer_sizes=tuple(_DFNN_D["hidden_layer_sizes"]),
        *,
        trainer=_DFNN_D["trainer"],
        alpha=None,
        bias=True,
        time_limit=None,
        batch_size=_DFNN_D["batch_size"],
        max_iter=None,
        tol=_DFNN_D["tol"],
        n_iter_no_change=_DFNN_D["n_iter_no_change"],
        init_scale=_DFNN_D["init_scale"],
        random_state=_DFNN_D["random_state"],
        n_jobs=None,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.trainer = trainer
        self.alpha = alpha
        self.bias = bias
        self.time_limit = time_limit
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.init_scale = init_scale
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit_model(self, X, Y, classification):
        tol, window = self.tol, self.n_iter_no_change
        if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or not (
            math.isfinite(tol) and tol >= 0
        ):
            raise ValueError(f"tol = {tol!r} is not admissible: a number, finite and >= 0 (0: no cycle rule)")
        if isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1:
            raise ValueError(f"n_iter_no_change = {window!r} is not admissible: an int >= 1")
        return _core.fit_dfnn(
            X,
            Y,
            hidden_layer_sizes=[int(w) for w in self.hidden_layer_sizes],
            trainer=self.trainer,
            rho=self.alpha,
            bias=self.bias,
            time_limit=self.time_limit,
            batch_size=self.batch_size,
            max_epochs=_DFNN_D["max_epochs"] if self.max_iter is None else self.max_iter,
            max_cycles=_DFNN_D["max_cycles"] if self.max_iter is None else self.max_iter,
            cycle_tolerance=float(tol),
            cycle_window=int(window),
            init_scale=self.init_scale,
            random_state=self._seed(),
            n_jobs=self.n_jobs,
        )


_DFNN_DOC = """Deep feedforward network{what} of Palagi & Seccia: sigmoid hidden
    layers, a linear output, trained by block layer decomposition.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default {hidden_layer_sizes}
    trainer : str, default "{trainer}"
        ``b2ld`` (batch, one layer's block at a time by L-BFGS), ``lbfgs``
        (all weights), ``bling`` (minibatch, by layer) or ``ig`` (minibatch,
        all weights).
    alpha : float or None
        ρ of objective (3), the weights' penalty (None: the paper's 10⁻³ /
        number of weights).
    bias : bool, default True
    time_limit : float or None
        Seconds after which training stops.
    batch_size : int, default {batch_size}
        bling and ig only.
    max_iter : int or None
        The most cycles over the layers (b2ld, default {max_cycles}) or
        epochs (bling and ig, default {max_epochs}); lbfgs stops by its
        tolerances and ``time_limit`` only. ``n_iter_`` is the count the
        fit ran.
    tol : float, default {tol}
        b2ld stops when its last ``n_iter_no_change`` cycles together
        decreased the objective by at most ``tol`` times its value (0: no
        such rule, the paper's B2LD). One cycle costs about
        ``L·12 + 1`` passes over the data for ``L`` layers (a pass: about
        6 x samples x weights flops); docs/defaults.md gives the measured
        cost on every shipped set.
    n_iter_no_change : int, default {n_iter_no_change}
        The cycles over which ``tol`` is measured (b2ld).
    init_scale : float, default {init_scale}
        Starting weights uniform on [-init_scale, init_scale].
    random_state : int, RandomState or None, default {random_state}
    n_jobs : int or None
    """


class DFNNRegressor(_DFNN, _Regressor):
    __doc__ = _DFNN_DOC.format(what=" for regression", **_DFNN_D)


class DFNNClassifier(_DFNN, _Classifier):
    __doc__ = _DFNN_DOC.format(what=" for classification", **_DFNN_D)


class _BPLS:
    _output = None
    _algorithm = None

    def __init__(
        self,
        hidden_layer_sizes=tuple(_BPLS_D["hidden_layer_sizes"]),
        *,
        activation=_BPLS_D["activation"],
        alpha=_BPLS_D["alpha"],
        target_ridge=_BPLS_D["target_ridge"],
        clip=_BPLS_D["clip"],
        max_iter=_BPLS_D["max_iterations"],
        init_scale=_BPLS_D["init_scale"],
        random_state=_BPLS_D["random_state"],
        n_jobs=None,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.alpha = alpha
        self.target_ridge = target_ridge
        self.clip = clip
        self.max_iter = max_iter
        self.init_scale = init_scale
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit_model(self, X, Y, classification):
        return _core.fit_bpls(
            X,
            Y,
            hidden_layer_sizes=[int(w) for w in self.hidden_layer_sizes],
            activation=self.activation,
            output=self._output,
            algorithm=self._algorithm,
            max_iterations=self.max_iter,
            alpha=self.alpha,
            target_ridge=self.target_ridge,
            clip=self.clip,
            init_scale=self.init_scale,
            random_state=self._seed(),
            n_jobs=self.n_jobs,
        )


_BPLS_DOC = """Tomic et al.'s network{what} trained by BPLS: every layer's weights
    by one closed-form ridge solve, layer by layer from the output back.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default {hidden_layer_sizes}
    activation : str, default "{activation}"
        The hidden layers' activation: sigmoid, tanh, linear, or softmax
        (over each hidden layer's neurons, per sample); BPLS inverts it.
    alpha : float, default {alpha}
        λ of every layer's ridge solve.
    target_ridge : float, default {target_ridge}
        μ, the relative regularization of the neuron-target solves.
    clip : float, default {clip}
        δ, the clipping margin of the inverse activations.
    max_iter : int, default {max_iterations}
        τ_max of Algorithm 2 (classification: passes on the misclassified
        samples after the first); ``n_iter_`` is the epochs the fit ran.
    init_scale : float, default {init_scale}
    random_state : int, RandomState or None, default {random_state}
    n_jobs : int or None
    """


class BPLSRegressor(_BPLS, _Regressor):
    __doc__ = _BPLS_DOC.format(what=" for regression (linear output, Algorithm 1)", **_BPLS_D)
    _output = "linear"
    _algorithm = 1


class BPLSClassifier(_BPLS, _Classifier):
    __doc__ = _BPLS_DOC.format(what=" for classification (softmax output, Algorithm 2)", **_BPLS_D)
    _output = "softmax"
    _algorithm = 2

    def predict_proba(self, X):
        """Class probabilities (K x C): the softmax output of the network."""
        return self._outputs(X)
