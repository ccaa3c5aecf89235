"""scikit-learn's MLPClassifier (Adam, minibatches of 128) on MNIST 784-50-10,
beside our `Backprop` in `bpls-report`.

Usage: python3 sklearn_mlp.py DATA_DIR TRAIN TEST EPOCHS REPS

DATA_DIR holds MNIST's IDX files (train-images-idx3-ubyte[.gz], …, as
shipped in data/mnist). The first TRAIN training and TEST test images are
read the way our loader reads them: pixels as float64 divided by 255 (the
same arrays: their sum is printed for the report to compare), labels 0–9.

MLPClassifier(hidden_layer_sizes=(50,), activation='logistic',
solver='adam', batch_size=128, learning_rate_init=1e-3, alpha=0,
max_iter=EPOCHS, shuffle=True, tol=0, n_iter_no_change=EPOCHS+1,
random_state=0): one hidden layer of 50 sigmoid units, a softmax output
over the 10 classes, the cross-entropy, exactly EPOCHS passes (no early
stop). Timed: fit() from scratch, REPS times (median and best), divided by
the epochs run (n_iter_); the test accuracy is that of the last fit.

Prints one JSON object: seconds (median fit), seconds_best, epochs (n_iter_),
test_accuracy (%), loss (the last epoch's mean training loss), x_sum,
sklearn and numpy versions, threads (OPENBLAS_NUM_THREADS) and blas (what
threadpoolctl reports: library and its thread count, when it is there).
"""
import gzip
import json
import os
import struct
import sys
import time
import warnings

import numpy as np


def read_idx(data_dir, stem):
    for name in (stem + ".gz", stem):
        path = os.path.join(data_dir, name)
        if os.path.isfile(path):
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rb") as f:
                raw = f.read()
            magic, count = struct.unpack(">II", raw[:8])
            dims = magic & 0xFF
            shape = struct.unpack(">" + "I" * dims, raw[4 : 4 + 4 * dims])
            data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims)
            return data.reshape(shape)
    raise FileNotFoundError(f"{data_dir}: no {stem}[.gz]")


def load(data_dir, part, limit):
    images = read_idx(data_dir, f"{part}-images-idx3-ubyte")
    labels = read_idx(data_dir, f"{part}-labels-idx1-ubyte")
    k = min(limit, images.shape[0])
    x = images[:k].reshape(k, -1).astype(np.float64) / 255.0
    return x, labels[:k].astype(np.int64)


def main():
    data_dir, train, test, epochs, reps = (
        sys.argv[1],
        int(sys.argv[2]),
        int(sys.argv[3]),
        int(sys.argv[4]),
        int(sys.argv[5]),
    )
    x_train, y_train = load(data_dir, "train", train)
    x_test, y_test = load(data_dir, "t10k", test)

    import sklearn
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    blas = "unknown"
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(
            f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        )
    except Exception:  # threadpoolctl is optional: only a label
        pass

    seconds, mlp = [], None
    for _ in range(reps):
        mlp = MLPClassifier(
            hidden_layer_sizes=(50,),
            activation="logistic",
            solver="adam",
            batch_size=128,
            learning_rate_init=1e-3,
            alpha=0.0,
            max_iter=epochs,
            shuffle=True,
            tol=0.0,
            n_iter_no_change=epochs + 1,
            random_state=0,
        )
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            mlp.fit(x_train, y_train)
        seconds.append(time.perf_counter() - t)
    accuracy = 100.0 * float(np.mean(mlp.predict(x_test) == y_test))
    print(
        json.dumps(
            {
                "seconds": float(np.median(seconds)),
                "seconds_best": float(min(seconds)),
                "epochs": int(mlp.n_iter_),
                "test_accuracy": accuracy,
                "loss": float(mlp.loss_),
                "x_sum": float(x_train.sum()),
                "sklearn": sklearn.__version__,
                "numpy": np.__version__,
                "threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
                "blas": blas,
            }
        )
    )


if __name__ == "__main__":
    main()
