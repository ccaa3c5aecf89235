"""ONNX Runtime's prediction time beside `nn predict`'s (issue 43), on
MNIST's 10,000 test images, for an ELM of 2000 sigmoid nodes and a BLS of
6 x 10 feature nodes and 3000 enhancement nodes, both fitted on the 60,000
training images by `nn fit --save` and exported by `nn export`.

`nn predict` is timed as a user runs it (one process: loading the model,
reading the IDX file, predicting, printing the labels); ONNX Runtime as a
service would run it: the session made once, then `run` on the test images
already in memory (as float64, scaled by the graph), the median of 5 runs;
the session's creation is reported apart. Both on every core (OpenBLAS's
and ONNX Runtime's defaults). Labels are checked equal.

Usage: onnx_predict.py NN_BINARY ROOT WORKDIR
"""

import gzip
import os
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import onnxruntime as ort
except ImportError:
    print("onnx_predict.py: skipped (onnxruntime is not installed)", file=sys.stderr)
    sys.exit(0)


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def main(nn, root, work):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    mnist = os.path.join(root, "data", "mnist")
    train = os.path.join(mnist, "train-images-idx3-ubyte.gz")
    test = os.path.join(mnist, "t10k-images-idx3-ubyte.gz")
    x = idx(test).reshape(10000, -1).astype(np.float64)
    models = {
        "ELM, 2000 sigmoid nodes": ["--model", "elm", "--hidden", "2000"],
        "BLS, 6 x 10 + 3000 nodes": ["--model", "bls", "--feature-groups", "6", "--feature-nodes", "10",
                                     "--enhancement", "3000"],
    }
    print("| model | `nn predict` (s, median of 3) | ONNX Runtime session (s) | ONNX Runtime run (s, median of 5) | labels equal |")
    print("|---|---|---|---|---|")
    for name, flags in models.items():
        saved = os.path.join(work, "m.bin")
        graph = os.path.join(work, "m.onnx")
        subprocess.run([nn, "fit", *flags, "--task", "classification", "--train", train, "--test", test,
                        "--save", saved], check=True, capture_output=True, env=env)
        subprocess.run([nn, "export", "--model-file", saved, "--onnx", graph], check=True, capture_output=True)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            out = subprocess.run([nn, "predict", "--model-file", saved, "--data", test], check=True,
                                 capture_output=True, text=True, env=env)
            times.append(time.perf_counter() - t)
        want = np.array(out.stdout.split(), dtype=np.int64)
        t = time.perf_counter()
        session = ort.InferenceSession(graph, providers=["CPUExecutionProvider"])
        made = time.perf_counter() - t
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            labels = session.run(["label"], {"X": x})[0]
            runs.append(time.perf_counter() - t)
        same = bool(np.array_equal(labels, want))
        print(f"| {name} | {statistics.median(times):.2f} | {made:.2f} | {statistics.median(runs):.3f} | {same} |")


if __name__ == "__main__":
    main(*sys.argv[1:4])
