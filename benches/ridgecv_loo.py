"""scikit-learn's RidgeCV (efficient leave-one-out, the peer of our
`leave_one_out`) on the same hidden matrix A (K×L) and targets Y (K×M):
RidgeCV(alphas=grid, fit_intercept=False, gcv_mode=MODE) with the squared
error, the LOO error of every alpha kept (store_cv_results). Reads A and Y
as raw little-endian f64 files. Prints one JSON object: {"sklearn": version,
"numpy": version, "threads": ..., "mode": MODE, "seconds": ..., "alpha":
chosen, "mse": [LOO MSE per alpha, in the grid's order]}. Usage:
ridgecv_loo.py A_FILE Y_FILE K L M MODE ALPHA1,ALPHA2,...
"""
import json
import os
import sys
import time

import numpy as np

try:
    import sklearn
    from sklearn.linear_model import RidgeCV
except Exception as e:  # noqa: BLE001 - report any import failure as a skip
    print(json.dumps({"error": f"scikit-learn not importable: {e}"}))
    sys.exit(0)


def main():
    a_file, y_file = sys.argv[1:3]
    k, l, m = (int(v) for v in sys.argv[3:6])
    mode = sys.argv[6]
    alphas = [float(v) for v in sys.argv[7].split(",")]
    a = np.fromfile(a_file, dtype="<f8").reshape(k, l)
    y = np.fromfile(y_file, dtype="<f8").reshape(k, m)
    model = RidgeCV(alphas=alphas, fit_intercept=False, gcv_mode=mode, store_cv_results=True)
    t = time.perf_counter()
    model.fit(a, y)
    seconds = time.perf_counter() - t
    # cv_results_: (K, M, n_alphas) squared LOO errors.
    mse = model.cv_results_.reshape(k, m, len(alphas)).mean(axis=(0, 1))
    print(json.dumps({
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "threads": os.environ.get("OPENBLAS_NUM_THREADS", "?"),
        "mode": mode,
        "seconds": seconds,
        "alpha": float(model.alpha_),
        "mse": [float(v) for v in mse],
    }))


main()
