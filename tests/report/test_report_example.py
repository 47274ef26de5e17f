"""The report of the repository's own MPI-IO example (examples/mpi), traced
by `hdtrace run` on 4 ranks with ROMIO: what the program did, and the one
thing wrong with it.

The example writes and reads back one block per rank at explicit offsets,
then writes the second half of the file collectively through a strided view
and reads it back twice: with File_read_all and with the split collective
File_read_all_begin/end. The second read of those bytes is the report's
redundant-reads finding; nothing else fires.
"""
import json
import os
import shutil
import subprocess

import pytest

import buildtree
import hdtrace
from hdtrace import native
from hdtrace import report as reporting

RANKS = 4
BLOCK = 1 << 20
MIB = 1 << 20


@pytest.fixture(scope="module")
def example_run(build_dir, tmp_path_factory):
    program = build_dir / "examples" / "mpi" / "mpi-io-example"
    buildtree.require_built(program)
    work = tmp_path_factory.mktemp("example")
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("HDTRACE_")}
    environment.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       OMPI_MCA_rmaps_base_oversubscribe="1",
                       OMPI_MCA_hwloc_base_binding_policy="none", OMPI_MCA_io="romio321",
                       PYTHONPATH=str(build_dir / "python"))
    result = subprocess.run(
        ["/usr/bin/python3", "-m", "hdtrace", "run", "-n", str(RANKS), "-o", "run", "--no-view",
         "--", str(program), "out.dat", str(BLOCK)],
        cwd=work, env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return work / "run", result.stderr


#: The findings that hang on how long calls took, which a busy machine
#: changes from run to run: off, so that the test sees what the program did.
TIMING_FINDINGS = ("rank-imbalance.share=1", "late-sender.share=1", "late-receiver.share=1",
                   "wait-at-collective.share=1", "metadata-heavy.seconds=1e9")


def test_only_the_second_read_is_a_finding(example_run):
    run, stderr = example_run
    thresholds = reporting.Thresholds()
    for setting in TIMING_FINDINGS:
        thresholds.set(setting)
    document = reporting.build(hdtrace.open(run / "mpi-io-example.proj"), thresholds).document()
    assert [finding["id"] for finding in document["findings"]] == ["redundant-reads"]
    finding = document["findings"][0]
    # Reads: a block per rank at its own offset, then the second half twice.
    read = RANKS * BLOCK + 2 * RANKS * BLOCK
    again = RANKS * BLOCK
    assert finding["message"] == (
        f"{again // MIB}.00 MiB of the {read // MIB}.00 MiB read (33.3 %) had been read before "
        f"from the same file, by the same rank or another; most on out.dat ({again // MIB}.00 MiB).")
    assert finding["values"] == {"redundant_bytes": again, "bytes_read": read,
                                 "share": again / read}
    # hdtrace run wrote the same finding beside the project, and printed it.
    written = json.loads((run / "mpi-io-example-report.json").read_text())
    assert finding in written["findings"]
    assert f"  warning        redundant-reads: {finding['message']}" in stderr
    checked = {entry["id"]: entry for entry in document["checked"]}
    assert len(checked) == 20 and all(entry["checked"] for entry in checked.values())


def test_layers_and_files_of_the_example(example_run):
    run, _ = example_run
    document = json.loads((run / "mpi-io-example-report.json").read_text())
    layers = {layer["name"]: layer for layer in document["layers"]}
    # Written: a block per rank at its offset, then a block per rank collectively.
    assert layers["MPI-IO"]["bytes_written"] == 2 * RANKS * BLOCK
    assert layers["MPI-IO"]["bytes_read"] == 3 * RANKS * BLOCK
    assert layers["MPI-IO"]["access_sizes"]["write"]["1M-4M"] == 2 * RANKS
    beneath = layers["POSIX"]["beneath_mpi_io"]
    assert beneath["bytes_written"] == 2 * RANKS * BLOCK
    assert beneath["bytes_read"] == 3 * RANKS * BLOCK
    out = next(entry for entry in document["files"] if entry["name"] == "out.dat")
    assert out["ranks"] == RANKS and out["shared"] is True
    assert out["bytes_written"] == 2 * RANKS * BLOCK and out["bytes_read"] == 3 * RANKS * BLOCK
    assert document["job"]["ranks"] == RANKS and document["job"]["clocks_aligned"] is True


def test_compact_form_of_the_example_gives_the_same_json(example_run, tmp_path):
    run, _ = example_run
    compact = tmp_path / "compact"
    shutil.copytree(run, compact)
    for trace in compact.glob("*.trc"):
        native.convert_trace(str(trace), str(trace.with_suffix(".ctrc")), "compact")
        trace.unlink()

    def document(project):
        result = reporting.build(hdtrace.open(project)).document()
        for key in ("trace_form", "trace_bytes", "project"):
            result["job"].pop(key)
        return result

    assert document(compact / "mpi-io-example.proj") == document(run / "mpi-io-example.proj")
