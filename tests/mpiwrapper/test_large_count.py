"""The MPI-4 large-count forms (MPI_X_c) are traced like their int forms.
The generator wraps every large-count form that the MPI
library's mpi.h declares (scripts/generate-wrappers.py reads the
preprocessed header), so the test follows the header: where it declares
MPI_Send_c (MPICH 4), programs/largecount.c is built and its trace checked
value by value; where it does not (Open MPI 4.1), the test checks that the
header indeed declares no large-count form and that none was wrapped.
"""
import os
import pathlib
import re

import tracecheck


def _build_dir():
    return pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR",
                                       pathlib.Path(__file__).resolve().parents[2] / "build"))


def _declared_large_count():
    declarations = _build_dir() / "mpiwrapper" / "generated" / "mpi_declarations.i"
    assert declarations.is_file(), f"{declarations} is missing: build first"
    return set(re.findall(r"\bint\s+(MPI_\w+_c)\s*\(", declarations.read_text()))


def _classic_only():
    """The large-count forms wrapper_conf.py leaves unwrapped on purpose."""
    conf = pathlib.Path(__file__).resolve().parents[2] / "mpiwrapper" / "wrapper_conf.py"
    namespace = {}
    exec(compile(conf.read_text(), str(conf), "exec"), namespace)
    return {name + "_c" for name, entry in namespace["FUNCTIONS"].items()
            if entry.get("classic_only")}


def _wrapped_large_count():
    generated = _build_dir() / "mpiwrapper" / "generated" / "MpiWrappers.cpp"
    return set(re.findall(r'^extern "C" int (MPI_\w+_c)\(', generated.read_text(), re.M))


def test_large_count_forms_follow_the_header(runner):
    declared, wrapped = _declared_large_count(), _wrapped_large_count()
    assert wrapped <= declared, f"wrapped but not declared: {sorted(wrapped - declared)}"
    program = runner.programs / "largecount_traced"
    if "MPI_Send_c" not in declared:
        assert not wrapped and not program.exists(), (
            "the header declares no large-count forms, yet some were wrapped or built")
        return
    # every traced int form the header also declares as _c is wrapped, but
    # for those wrapper_conf.py marks classic_only
    generated = (_build_dir() / "mpiwrapper" / "generated" / "MpiWrappers.cpp").read_text()
    int_forms = set(re.findall(r'^extern "C" int (MPI_\w+)\(', generated, re.M)) - wrapped
    missing = ({name + "_c" for name in int_forms if name + "_c" in declared} - wrapped
               - _classic_only())
    assert not missing, f"declared but not wrapped: {sorted(missing)}"
    assert {"MPI_Send_c", "MPI_File_write_at_c", "MPI_Allgatherv_c"} <= wrapped

    plain = runner.run("largecount_plain", 2)
    traced = runner.run("largecount_traced", 2)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.stderr == plain.result.stderr == ""
    assert tracecheck.per_rank_lines(traced.result.stdout) == \
        tracecheck.per_rank_lines(plain.result.stdout)
    traced.check()
