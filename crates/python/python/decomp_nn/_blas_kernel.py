"""OpenBLAS's kernel for this CPU, chosen before the extension loads (issue 37).

OpenBLAS built for many CPUs picks its kernel set once, when it is loaded:
from ``OPENBLAS_CORETYPE`` if that is set, else from the CPU models it knows.
A CPU newer than the library gets the generic Prescott kernels (Debian's
OpenBLAS 0.3.21 on an Emerald Rapids Xeon: DGEMM at a fifth of its speed).
The command line starts itself again when that happens; a Python package
cannot, so it decides *before* loading its extension, from the CPU alone,
by the same rule as ``linalg_core::blas_kernel::kernel_for`` (the tests
check the two agree on every CPU description):

- ``OPENBLAS_CORETYPE`` already set (to anything): left alone;
- no AVX2 with FMA: nothing chosen (the library's own choice is the best);
- Intel with AVX-512 → ``SkylakeX``; AMD family ≥ 26 (Zen 5 and later) →
  ``Haswell``; AMD with AVX-512 (Zen 4) → ``SkylakeX``; other AMD →
  ``Zen``; any other CPU → ``Haswell``.

The variable is set only while the extension loads and removed afterwards,
so that other libraries loaded later (numpy's own OpenBLAS) and
subprocesses make their own choice. ``decomp_nn.blas_info()`` says which
kernel runs and who chose it.
"""

import os

CORETYPE = "OPENBLAS_CORETYPE"

# The AVX-512 subsets OpenBLAS's SkylakeX kernels use.
_AVX512 = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")

#: The kernel this module set while the extension loaded (``None``: none).
chosen = None


def kernel_for(vendor, family, avx2, fma, avx512):
    """The kernel for a CPU described by its vendor string, family and
    features (AVX2, FMA3, the AVX-512 subsets), or ``None``."""
    if not (avx2 and fma):
        return None
    if vendor == "GenuineIntel" and avx512:
        return "SkylakeX"
    if vendor == "AuthenticAMD":
        if family >= 26:
            return "Haswell"
        return "SkylakeX" if avx512 else "Zen"
    return "Haswell"


def parse_cpuinfo(text):
    """``(vendor, family, flags)`` of the first processor in the text of
    ``/proc/cpuinfo``; ``None`` when it names no vendor."""
    fields = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    vendor = fields.get("vendor_id")
    if vendor is None:
        return None
    try:
        family = int(fields.get("cpu family", "0"))
    except ValueError:
        family = 0
    return vendor, family, set(fields.get("flags", "").split())


def kernel_for_this_cpu(cpuinfo="/proc/cpuinfo"):
    """The kernel for the CPU this runs on (Linux; ``None`` elsewhere, or
    when the file cannot be read). Linux lists a feature in ``flags`` only
    when the operating system has enabled it."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            parsed = parse_cpuinfo(f.read())
    except OSError:
        return None
    if parsed is None:
        return None
    vendor, family, flags = parsed
    return kernel_for(
        vendor,
        family,
        "avx2" in flags,
        "fma" in flags,
        all(f in flags for f in _AVX512),
    )


def load_with_chosen_kernel(load, environ=None, kernel=None):
    """Call ``load()`` (the import of the extension) with
    ``OPENBLAS_CORETYPE`` set to this CPU's kernel when the variable is
    unset and the rule chooses one; the variable is removed again after.
    ``environ`` and ``kernel`` are for tests (default: ``os.environ`` and
    :func:`kernel_for_this_cpu`)."""
    global chosen
    environ = os.environ if environ is None else environ
    if CORETYPE in environ:
        return load()
    kernel = kernel_for_this_cpu() if kernel is None else kernel
    if kernel is None:
        return load()
    environ[CORETYPE] = kernel
    try:
        result = load()
    finally:
        environ.pop(CORETYPE, None)
    chosen = kernel
    return result
