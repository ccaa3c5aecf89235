"""The kernel choice of issue 37 in the Python package: the Python rule is
the Rust rule on every CPU description, a set OPENBLAS_CORETYPE is never
overridden, no kernel is chosen whose instructions the CPU lacks, and a
fresh interpreter runs a kernel that uses the CPU's vector units."""

import itertools
import json
import os
import subprocess
import sys

import pytest

from decomp_nn import _blas_kernel, _core, blas_info

VENDORS = ["GenuineIntel", "AuthenticAMD", "HygonGenuine", ""]
FAMILIES = [5, 6, 15, 23, 25, 26, 27]
# What each kernel the rule may choose needs: (AVX2 and FMA, AVX-512).
NEEDS = {"SkylakeX": (True, True), "Haswell": (True, False), "Zen": (True, False)}
AVX2_KERNELS = {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids", "excavator"}


def all_cpus():
    for vendor, family in itertools.product(VENDORS, FAMILIES):
        for avx2, fma, avx512 in itertools.product([False, True], repeat=3):
            yield vendor, family, avx2, fma, avx512


def test_the_python_rule_is_the_rust_rule():
    for cpu in all_cpus():
        assert _blas_kernel.kernel_for(*cpu) == _core.blas_kernel_for(*cpu), cpu


def test_no_kernel_needs_what_the_cpu_lacks():
    for vendor, family, avx2, fma, avx512 in all_cpus():
        k = _blas_kernel.kernel_for(vendor, family, avx2, fma, avx512)
        if k is None:
            continue
        needs_avx2, needs_avx512 = NEEDS[k]
        assert not needs_avx2 or (avx2 and fma), (k, vendor, family)
        assert not needs_avx512 or avx512, (k, vendor, family)


def test_the_machines_this_project_met():
    assert _blas_kernel.kernel_for("GenuineIntel", 6, True, True, True) == "SkylakeX"
    assert _blas_kernel.kernel_for("AuthenticAMD", 26, True, True, True) == "Haswell"
    assert _blas_kernel.kernel_for("AuthenticAMD", 25, True, True, True) == "SkylakeX"
    assert _blas_kernel.kernel_for("AuthenticAMD", 23, True, True, False) == "Zen"
    assert _blas_kernel.kernel_for("GenuineIntel", 6, False, False, False) is None


CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 207
flags\t\t: fpu sse2 avx avx2 fma avx512f avx512cd avx512bw avx512dq avx512vl amx_tile

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 25
flags\t\t: fpu
"""


def test_cpuinfo_is_read_from_the_first_processor(tmp_path):
    vendor, family, flags = _blas_kernel.parse_cpuinfo(CPUINFO)
    assert (vendor, family) == ("GenuineIntel", 6)
    assert {"avx2", "fma", "avx512vl"} <= flags
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO)
    assert _blas_kernel.kernel_for_this_cpu(str(path)) == "SkylakeX"
    # Without AVX512VL the SkylakeX kernels are out of reach.
    path.write_text(CPUINFO.replace(" avx512vl", ""))
    assert _blas_kernel.kernel_for_this_cpu(str(path)) == "Haswell"
    assert _blas_kernel.kernel_for_this_cpu(str(tmp_path / "absent")) is None
    assert _blas_kernel.parse_cpuinfo("processor : 0\n") is None


def test_a_set_variable_is_never_overridden_and_ours_is_removed_after():
    seen = []
    env = {"OPENBLAS_CORETYPE": "Prescott"}
    _blas_kernel.load_with_chosen_kernel(lambda: seen.append(dict(env)), environ=env, kernel="SkylakeX")
    assert seen == [{"OPENBLAS_CORETYPE": "Prescott"}] and env == {"OPENBLAS_CORETYPE": "Prescott"}
    env = {"OPENBLAS_CORETYPE": ""}
    _blas_kernel.load_with_chosen_kernel(lambda: seen.append(dict(env)), environ=env, kernel="SkylakeX")
    assert env == {"OPENBLAS_CORETYPE": ""}
    env = {}
    _blas_kernel.load_with_chosen_kernel(lambda: seen.append(dict(env)), environ=env, kernel="Haswell")
    assert seen[-1] == {"OPENBLAS_CORETYPE": "Haswell"} and env == {}


def fresh_interpreter(env_changes):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update(env_changes)
    code = (
        "import json, os, warnings\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    import decomp_nn\n"
        "print(json.dumps({'info': decomp_nn.blas_info(), 'warned': [str(x.message) for x in w],"
        " 'left': os.environ.get('OPENBLAS_CORETYPE')}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def has_vector_units():
    return _blas_kernel.kernel_for_this_cpu() is not None


def test_a_fresh_interpreter_runs_a_kernel_for_this_cpu():
    got = fresh_interpreter({})
    info = got["info"]
    assert got["left"] is None, "the variable is removed after loading"
    if "DYNAMIC_ARCH" in info["config"] and has_vector_units():
        assert info["kernel"].lower() in AVX2_KERNELS, info
        assert info["kernel"] == _blas_kernel.kernel_for_this_cpu(), info
        assert info["chosen_by"] == "chosen", info
        assert info["slow_kernel"] is None and got["warned"] == [], got


def test_a_generic_kernel_set_by_the_user_is_kept_and_warned_of():
    got = fresh_interpreter({"OPENBLAS_CORETYPE": "Prescott"})
    info = got["info"]
    assert got["left"] == "Prescott"
    assert info["chosen_by"] == "environment", info
    if "DYNAMIC_ARCH" in info["config"]:
        assert info["kernel"] == "Prescott", info
        if has_vector_units():
            assert info["slow_kernel"] in ("AVX2", "AVX-512"), info
            assert any("Prescott" in m for m in got["warned"]), got


def test_blas_info_in_this_process():
    info = blas_info()
    assert info["library"] == "OpenBLAS" and info["kernel"], info
    assert info["chosen_by"] in ("library", "environment", "chosen"), info


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
