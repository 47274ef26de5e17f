"""The training run (cmake/HDTracePgo.cmake): where HDTRACE_PGO is on, the
tracing libraries of the build tree were compiled with the branch counts of
mpiwrapper/training, and the counts are there for every object of a traced
call's path. A failed training run only warns in the build, so that a
machine whose MPI cannot start a process still builds; this test is where
the loss of the counts fails."""
import pathlib
import subprocess

import pytest

from buildtree import cache_value

# The objects a traced call runs through, by their path below the tree.
CALL_PATH_OBJECTS = [
    "codec/CMakeFiles/hdtrace_codec_objects.dir/src/CompactEncoder.cpp.o",
    "codec/CMakeFiles/hdtrace_codec_objects.dir/src/Format.cpp.o",
    "hdtrace/CMakeFiles/hdtrace_objects.dir/src/TraceWriter.cpp.o",
    "hdtrace/CMakeFiles/hdtrace_objects.dir/src/CompactEncoding.cpp.o",
    "hdtrace/CMakeFiles/hdtrace_objects.dir/src/XmlEncoding.cpp.o",
    "hdtrace/CMakeFiles/hdtrace_objects.dir/src/Clock.cpp.o",
    "hdtrace/CMakeFiles/hdtrace_frame_objects.dir/src/FrameWriter.cpp.o",
    "mpiwrapper/CMakeFiles/hdtracempi_objects.dir/generated/MpiWrappers.cpp.o",
    "mpiwrapper/CMakeFiles/hdtracempi_objects.dir/generated/PosixWrappers.cpp.o",
]


@pytest.fixture(scope="module")
def profile_dir(build_dir):
    if cache_value(build_dir, "HDTRACE_PGO").upper() not in ("ON", "TRUE", "1"):
        pytest.skip(f"HDTRACE_PGO is off in {build_dir}: no training run to check")
    if cache_value(build_dir, "HDTRACE_PGO_ACTIVE").upper() not in ("ON", "TRUE", "1"):
        # The configure step turned it off (another compiler, a sanitizer
        # or debug tree) and said why.
        pytest.skip(f"{build_dir} does not take branch counts (see its configure output, "
                    "'HDTRACE_PGO: off, ...')")
    return pathlib.Path(cache_value(build_dir, "HDTRACE_PGO_PROFILE_DIR"))


def test_the_training_run_counted(profile_dir):
    stamp = profile_dir.with_name(profile_dir.name + ".stamp")
    assert stamp.is_file(), f"{stamp} is missing: the training run never ran"
    outcome = stamp.read_text().strip()
    assert outcome == "counted", (
        f"the training run left no branch counts ({outcome}); the build's output has its "
        "warning and the program's messages")


def test_every_object_of_the_call_path_has_its_counts(build_dir, profile_dir):
    # GCC looks the counts of an object up by its path below the tree
    # (-fprofile-prefix-path), each '/' written '#'.
    missing = []
    for object_path in CALL_PATH_OBJECTS:
        assert (build_dir / object_path).is_file(), f"{object_path} is not built"
        counts = profile_dir / (object_path[: -len(".o")].replace("/", "#") + ".gcda")
        if not counts.is_file() or counts.stat().st_size == 0:
            missing.append(counts.name)
    assert not missing, f"no branch counts for {missing} in {profile_dir}"


def test_the_library_was_compiled_with_the_counts(build_dir, profile_dir):
    # The compiler's own record of each compile unit's options, in the
    # library's debug information.
    library = build_dir / "mpiwrapper/libhdtracempi.so"
    dump = subprocess.run(["readelf", "--debug-dump=info", str(library)], capture_output=True,
                          text=True, check=True).stdout
    units = {}
    producer = None
    for line in dump.splitlines():
        if "DW_AT_producer" in line:
            producer = line
        elif "DW_AT_name" in line and producer is not None:
            units[line.rsplit(": ", 1)[-1].strip()] = producer
            producer = None
    for source in ("CompactEncoder.cpp", "TraceWriter.cpp", "MpiWrappers.cpp",
                   "PosixWrappers.cpp"):
        found = [name for name in units if name.endswith("/" + source)]
        assert found, f"{library} has no compile unit of {source}"
        for name in found:
            assert f"-fprofile-use={profile_dir}" in units[name], (
                f"{name} was compiled without the branch counts: {units[name]}")
