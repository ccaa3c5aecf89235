"""What every estimator of ``decomp_nn`` shares: input validation by
scikit-learn's own functions, the class labels of a classifier, the
thread count, and the call into the Rust engine (``decomp_nn._core``).

No numerics happen here: the arrays are checked and handed over (as
float64, without a copy when they already are float64), and the Rust
library fits and predicts.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import TransformerTags, check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _core

DEFAULTS = _core.defaults()
"""The library's defaults, by model (``DEFAULTS["elm"]["alpha"]``, ...)."""


def seed_of(random_state):
    """The library's ``u64`` seed for scikit-learn's ``random_state``: an int
    ``>= 0`` as it is; ``None`` or a ``numpy.random.RandomState`` draws one."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state = {random_state} is not admissible: an int >= 0, None or a RandomState")
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**63 - 1, dtype=np.int64))


def _one_hot(indices, n_classes):
    """Class indicators (K x C, float64): 1 in each row's class column. Not
    arithmetic: the targets a classifier fits, as the command line builds
    them."""
    y = np.zeros((indices.shape[0], n_classes), dtype=np.float64)
    y[np.arange(indices.shape[0]), indices] = 1.0
    return y


def _weights(sample_weight, X, allow_all_zero=False):
    """``{"sample_weight": float64 array}`` for the Rust fit, or ``{}`` when
    no weights are given (scikit-learn's checks of their shape and values;
    the library checks them again). A batch added to or forgotten from a
    fit may weigh nothing (``allow_all_zero``)."""
    if sample_weight is None:
        return {}
    if allow_all_zero and np.ndim(sample_weight) == 1 and len(sample_weight) == X.shape[0]:
        w = np.asarray(sample_weight, dtype=np.float64)
        if not np.any(w):
            # scikit-learn refuses all-zero weights; a batch may weigh nothing.
            return {"sample_weight": w}
    return {"sample_weight": _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)}


def _csr_parts(X):
    """The CSR parts of a sparse ``X`` (CSR with float64 values, as
    ``validate_data(accept_sparse="csr")`` returns it) for the Rust side:
    its shape, int64 row pointers and column indices, float64 values. A
    matrix not in canonical form (indices unsorted or repeated) is
    canonicalized on a copy, so that the same values always reach the same
    computation (the caller's matrix is left as it is)."""
    X = sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return (
        (int(X.shape[0]), int(X.shape[1])),
        np.asarray(X.indptr, dtype=np.int64),
        np.asarray(X.indices, dtype=np.int64),
        np.asarray(X.data, dtype=np.float64),
    )


class _Base(BaseEstimator):
    """Fitting and predicting through ``self.model_``."""

    # Whether ``X`` may be a ``scipy.sparse`` matrix (converted to CSR): the
    # ELM and the BLS, whose hidden layers read ``X`` through products only.
    _sparse = False

    def to_onnx(self, path, dtype="float64"):
        """Write the fitted model to ``path`` as an ONNX file (issue 43) and
        return ``path``. The graph's input ``X`` (K x N) is what ``predict``
        takes (put any scaling of a pipeline in front of it in your own
        graph); its outputs are ``Y`` (K x M, also for a 1-D ``y``) for a
        regressor, ``scores`` (the ``decision_function`` of every class, or
        ``predict_proba`` for BPLS's softmax) and ``label`` (``classes_``,
        which must be integers or strings) for a classifier. ``dtype``:
        ``"float64"`` (the library's precision) or ``"float32"``."""
        check_is_fitted(self, "model_")
        if dtype not in ("float64", "float32"):
            raise ValueError(f"dtype = {dtype!r} is not admissible: 'float64' or 'float32'")
        labels = None
        if isinstance(self, ClassifierMixin):
            classes = self.classes_
            if np.issubdtype(classes.dtype, np.integer):
                labels = [int(c) for c in classes]
            elif all(isinstance(c, str) for c in classes):
                labels = [str(c) for c in classes]
            else:
                raise ValueError(
                    f"class labels of dtype {classes.dtype} cannot be exported: ONNX labels are int64 or strings"
                )
        data = self.model_.to_onnx(labels=labels, float32=dtype == "float32")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _check_X(self, X, reset=False):
        """``X`` validated as scikit-learn does (float64; CSR if sparse and
        the model takes sparse samples)."""
        return validate_data(self, X, dtype=np.float64, reset=reset, accept_sparse="csr" if self._sparse else False)

    def _fit_model(self, X, Y, classification):
        """Fit the Rust model on float64 ``X`` (K x N) and ``Y`` (K x M);
        returns ``(model, info)``."""
        raise NotImplementedError

    def _outputs(self, X):
        check_is_fitted(self, "model_")
        X = self._check_X(X)
        if sp.issparse(X):
            return self.model_.predict_sparse(*_csr_parts(X), n_jobs=self.n_jobs)
        return self.model_.predict(X, n_jobs=self.n_jobs)

    def _seed(self):
        """The seed of this fit, from ``random_state`` (None: a fresh one
        from numpy's global generator, as scikit-learn draws it), recorded
        as ``random_state_`` so that a fit can be repeated exactly."""
        self.random_state_ = seed_of(self.random_state)
        return self.random_state_

    def _after_fit(self, model, info):
        self.model_ = model
        self.fit_info_ = dict(info)
        for key in ("iterations", "epochs"):
            if key in self.fit_info_:
                self.n_iter_ = int(self.fit_info_[key])
        nodes = model.nodes
        if nodes is not None:
            self.n_hidden_ = nodes
        selection = self.fit_info_.get("selection")
        if selection is not None:
            self.alpha_ = selection["lambda"]
            self.selection_ = selection
            if selection.get("scale") is not None:
                self.weight_scale_ = selection["scale"]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.non_deterministic = False
        return tags


class _RidgeReadout:
    """What the ELM and the BLS add: the hidden layer as ``transform`` (as
    scikit-elm and hpelm's ``project`` offer) and the output weights as
    ``coef_``, so that ``predict(X) == transform(X) @ coef_.T``. Both take
    ``scipy.sparse`` samples (any format, used as CSR): the hidden layer's
    product with ``X`` is then computed from the stored entries only."""

    _sparse = True

    def transform(self, X):
        """The hidden layer's outputs for samples ``X`` (K x l; the BLS's
        feature then enhancement nodes): what the ridge readout fits."""
        check_is_fitted(self, "model_")
        X = self._check_X(X)
        if sp.issparse(X):
            return self.model_.hidden_outputs_sparse(*_csr_parts(X), n_jobs=self.n_jobs)
        return self.model_.hidden_outputs(X, n_jobs=self.n_jobs)

    def _refuse_sparse_options(self):
        """Sparse samples are taken by the plain fit only."""
        if self.growable or self.select_lambda is not None or self.grow_until_val:
            raise ValueError(
                "sparse X is taken by the plain fit only: not with growable, select_lambda or grow_until_val "
                "(pass X.toarray() for those)"
            )

    @property
    def coef_(self):
        """The output weights, one row per output (M x l; a regressor fitted
        on a 1-D ``y``: shape (l,)), as scikit-learn's linear models lay
        them out; there is no intercept (``intercept_`` is 0)."""
        check_is_fitted(self, "model_")
        w = self.model_.output_weights().T
        return w[0] if getattr(self, "_y_ndim", 2) == 1 else w

    def fit_transform(self, X, y, **fit_params):
        """``fit(X, y, **fit_params).transform(X)``."""
        return self.fit(X, y, **fit_params).transform(X)

    def __sklearn_tags__(self):
        # transform makes these transformers too (the hidden layer), so
        # scikit-learn's transformer checks run on them as well.
        tags = super().__sklearn_tags__()
        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        tags.input_tags.sparse = True
        return tags

    @property
    def intercept_(self):
        """0 for every output: the readout has no bias term."""
        check_is_fitted(self, "model_")
        m = self.model_.output_weights().shape[1]
        return 0.0 if getattr(self, "_y_ndim", 2) == 1 else np.zeros(m)


class _Regressor(RegressorMixin, _Base):
    """A regressor: one or several outputs (``y`` of shape (K,) or (K, M))."""

    def fit(self, X, y):
        """Fit the model to samples ``X`` (K x N) and targets ``y`` (K,) or
        (K, M). Returns ``self``."""
        return self._fit(X, y, None)

    def _fit(self, X, y, sample_weight):
        X, y = validate_data(
            self,
            X,
            y,
            dtype=np.float64,
            multi_output=True,
            y_numeric=True,
            accept_sparse="csr" if self._sparse else False,
        )
        self._y_ndim = y.ndim
        Y = np.asarray(y, dtype=np.float64).reshape(y.shape[0], -1)
        self._after_fit(*self._fit_model(X, Y, False, **_weights(sample_weight, X)))
        return self

    def predict(self, X):
        """The predicted targets of samples ``X``: shape (K,) for a model
        fitted on a 1-D ``y``, else (K, M)."""
        out = self._outputs(X)
        return out[:, 0] if self._y_ndim == 1 else out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = True
        return tags


class _Classifier(ClassifierMixin, _Base):
    """A classifier: the network fits one-hot class indicators and predicts
    the class of its largest output."""

    def fit(self, X, y):
        """Fit the model to samples ``X`` (K x N) and class labels ``y``
        (K,). Returns ``self``."""
        return self._fit(X, y, None)

    def _fit(self, X, y, sample_weight):
        X, y = validate_data(self, X, y, dtype=np.float64, accept_sparse="csr" if self._sparse else False)
        check_classification_targets(y)
        self.classes_, indices = np.unique(y, return_inverse=True)
        Y = _one_hot(indices, len(self.classes_))
        self._after_fit(*self._fit_model(X, Y, True, **_weights(sample_weight, X)))
        return self

    def predict(self, X):
        """The class of each sample of ``X``: the label of the network's
        largest output."""
        check_is_fitted(self, "model_")
        X = self._check_X(X)
        if sp.issparse(X):
            return self.classes_[self.model_.predict_class_sparse(*_csr_parts(X), n_jobs=self.n_jobs)]
        return self.classes_[self.model_.predict_class(X, n_jobs=self.n_jobs)]

    def decision_function(self, X):
        """The network's outputs (K x C), one per class; for two classes the
        difference of the second and the first (K,), positive for the
        second class, as scikit-learn's binary convention asks."""
        out = self._outputs(X)
        if out.shape[1] == 2:
            return out[:, 1] - out[:, 0]
        return out


class _Updatable:
    """``partial_fit`` and ``forget`` for the ELM and the BLS (ridge
    readouts whose sums of rows are kept: rows are added by a QR update of
    the Cholesky factor of AᵀA + λI and forgotten by a downdate)."""

    def _start_kwargs(self):
        raise NotImplementedError

    def _targets(self, y, classes, first):
        if not is_classifier_like(self):
            y = np.asarray(y, dtype=np.float64)
            if first:
                self._y_ndim = y.ndim
            return y.reshape(y.shape[0], -1)
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit")
            self.classes_ = np.unique(np.asarray(classes))
        indices = np.searchsorted(self.classes_, y)
        indices = np.clip(indices, 0, len(self.classes_) - 1)
        unknown = self.classes_[indices] != y
        if np.any(unknown):
            raise ValueError(
                f"y contains labels not in classes: {np.unique(np.asarray(y)[unknown]).tolist()} "
                f"(classes given on the first call: {self.classes_.tolist()})"
            )
        return _one_hot(indices, len(self.classes_))

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add the rows ``X``, ``y`` to the fit: the output weights become the
        ridge solution on every row given so far. The first call fits the
        network on its rows (the hidden layer is drawn then; a classifier
        needs ``classes``, every label it will see). Only a model started by
        ``partial_fit`` can continue: ``fit`` keeps no sums of its rows, so
        ``partial_fit`` after ``fit`` starts a new fit (with a warning).
        With ``sample_weight`` (K, >= 0) each row counts ``w`` times, as in
        ``fit``; ``forget`` those rows with the same weights."""
        first = not hasattr(self, "model_")
        if not first and self.model_.rows is None:
            # Fitted by `fit`, which keeps no sums of its rows (keeping them
            # would cost a second pass over the hidden outputs in every fit).
            warnings.warn(
                f"{type(self).__name__}.partial_fit after fit starts a new fit on these rows: fit keeps no sums "
                "of its rows to add to; call partial_fit from the start to add rows to a fit",
                UserWarning,
                stacklevel=2,
            )
            if classes is None and hasattr(self, "classes_"):
                classes = self.classes_
            first = True
        classifier = is_classifier_like(self)
        kwargs = {"dtype": np.float64, "reset": first}
        if not classifier:
            kwargs.update(multi_output=True, y_numeric=True)
        X, y = validate_data(self, X, y, **kwargs)
        if classifier:
            check_classification_targets(y)
        Y = self._targets(y, classes, first)
        weights = _weights(sample_weight, X, allow_all_zero=not first)
        if first:
            model = _core.partial_fit_start(X, Y, n_jobs=self.n_jobs, **weights, **self._start_kwargs())
            self._after_fit(model, {})
        else:
            self.model_.partial_fit(X, Y, n_jobs=self.n_jobs, **weights)
        return self

    def forget(self, X, y, sample_weight=None):
        """Remove the rows ``X``, ``y`` (given before to ``partial_fit``,
        with the same ``sample_weight``) from the fit: the output weights
        become the ridge solution on the rows kept."""
        check_is_fitted(self, "model_")
        classifier = is_classifier_like(self)
        kwargs = {"dtype": np.float64, "reset": False}
        if not classifier:
            kwargs.update(multi_output=True, y_numeric=True)
        X, y = validate_data(self, X, y, **kwargs)
        Y = self._targets(y, None, False)
        self.model_.forget(X, Y, n_jobs=self.n_jobs, **_weights(sample_weight, X, allow_all_zero=True))
        return self


class _Growable:
    """``add_nodes`` for the ELM and the BLS fitted with ``growable=True``."""

    def add_nodes(self, q):
        """Add ``q`` hidden nodes (ELM) or enhancement nodes (BLS) and update
        the output weights with the model's incremental strategy, exactly
        (no refit). Needs ``growable=True`` at fit. Returns ``self``."""
        check_is_fitted(self, "model_")
        if isinstance(q, bool) or not isinstance(q, (int, np.integer)) or q < 1:
            raise ValueError(f"q = {q!r} is not admissible: the nodes to add, an int >= 1")
        self.model_.add_nodes(int(q), n_jobs=self.n_jobs)
        self.n_hidden_ = self.model_.nodes
        return self


def is_classifier_like(estimator):
    """Whether ``estimator`` is one of this package's classifiers."""
    return isinstance(estimator, _Classifier)
