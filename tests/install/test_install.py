"""`cmake --install`: what a user gets, and that it works from outside the build tree.

The build is installed with DESTDIR into a scratch directory. Then an MPI
program is linked the way README says (`mpicc app.c $(pkg-config --libs
hdtrace-mpi)`) and traced, a separate CMake project uses find_package(HDTrace),
and the installed Python package and commands run.
"""
import os
import pathlib
import re
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PREFIX = "/usr/local"


def cache_value(build_dir, name):
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", (build_dir / "CMakeCache.txt").read_text(),
                      re.MULTILINE)
    if not match:
        pytest.fail(f"{name} is not in {build_dir}/CMakeCache.txt")
    return match.group(1)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(build_dir, tmp_path_factory):
    root = tmp_path_factory.mktemp("destdir")
    run(["cmake", "--install", str(build_dir)], env=dict(os.environ, DESTDIR=str(root)))
    prefix = root / PREFIX.lstrip("/")
    libdir = prefix / cache_value(build_dir, "CMAKE_INSTALL_LIBDIR")
    return root, prefix, libdir


def test_installs_libraries_headers_tools_and_package_files(installed):
    _, prefix, libdir = installed
    expected = [
        libdir / "libhdtrace.a", libdir / "libhdtracempi.a", libdir / "libhdtracempi.so",
        libdir / "pkgconfig" / "hdtrace.pc", libdir / "pkgconfig" / "hdtrace-mpi.pc",
        libdir / "cmake" / "HDTrace" / "HDTraceConfig.cmake",
        libdir / "cmake" / "HDTrace" / "HDTraceTargets.cmake",
        prefix / "include" / "hdtrace" / "hdTrace.h",
        prefix / "include" / "hdtrace" / "TraceWriter.hpp",
        prefix / "include" / "hdtrace" / "hdtracempi.h",
        prefix / "bin" / "project-merger", prefix / "bin" / "project-description-merger.py",
        prefix / "bin" / "hdtrace",
    ]
    missing = [str(path) for path in expected if not path.exists()]
    assert not missing, f"not installed: {missing}"


def test_pkg_config_links_a_traced_mpi_program(installed, build_dir, tmp_path):
    root, _, libdir = installed
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig"),
               PKG_CONFIG_SYSROOT_DIR=str(root))
    flags = run(["pkg-config", "--cflags", "--libs", "hdtrace-mpi"], env=env).stdout.split()
    program = tmp_path / "mpi-io-example"
    mpicc = cache_value(build_dir, "MPI_C_COMPILER")
    run([mpicc, "-o", str(program), str(REPO / "examples" / "mpi" / "mpi-io-example.c")] + flags)

    traces = tmp_path / "traces"
    mpiexec = cache_value(build_dir, "MPIEXEC_EXECUTABLE")
    launcher = [mpiexec, "-n", "2"]
    if "Open MPI" in run([mpiexec, "--version"]).stdout:
        launcher.append("--oversubscribe")
    run(launcher + [str(program), str(tmp_path / "data.bin"), "4096"], cwd=tmp_path,
        env=dict(os.environ, HDTRACE_DIR=str(traces), OMPI_ALLOW_RUN_AS_ROOT="1",
                 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    names = sorted(p.name for p in traces.glob("*.trc"))
    assert len(names) == 2 and all(n.startswith("mpi-io-example_") for n in names), names
    for trace in traces.glob("*.trc"):
        tags = [element.tag for element in ET.parse(trace).getroot()]
        assert tags[0] == "Init" and tags[-1] == "Finalize"
        assert "File_write_all" in tags and "File_read_at" in tags


def test_find_package_builds_a_program_against_libhdtrace(installed, tmp_path):
    _, prefix, _ = installed
    source = tmp_path / "consumer"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.19)
        project(consumer LANGUAGES C CXX)
        find_package(HDTrace REQUIRED)
        add_executable(consumer consumer.c)
        target_link_libraries(consumer PRIVATE HDTrace::hdtrace)
        """))
    (source / "consumer.c").write_text(textwrap.dedent("""\
        #include <hdtrace/hdTrace.h>
        int main(int argc, char **argv) {
            const char *levels[] = {"host", "0", "0"};
            hdTrace trace = hdT_createTrace(argv[1], "consumer", 3, levels);
            if (!trace) return 1;
            hdT_logStateStart(trace, "Installed");
            hdT_logAttributes(trace, "ok='%d'", 1);
            hdT_logStateEnd(trace);
            return hdT_finalize(trace) == 0 ? 0 : 2;
        }
        """))
    build = tmp_path / "consumer-build"
    run(["cmake", "-S", str(source), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", str(build)])
    run([str(build / "consumer"), str(tmp_path)])
    root = ET.parse(tmp_path / "consumer_host_0_0.trc").getroot()
    assert [(e.tag, e.get("ok")) for e in root] == [("Installed", "1")]


def test_installed_python_package_and_commands_run(installed, build_dir):
    root, prefix, _ = installed
    site = pathlib.Path(str(root) + cache_value(build_dir, "HDTRACE_PYTHON_SITE_DIR"))
    env = dict(os.environ, PYTHONPATH=str(site))
    where = run(["/usr/bin/python3", "-c", "import hdtrace; print(hdtrace.__file__)"],
                env=env, cwd="/").stdout.strip()
    assert where.startswith(str(site)), where
    assert "usage" in run(["/usr/bin/python3", str(prefix / "bin" / "hdtrace"), "--help"],
                          env=env).stdout.lower()
    assert "project-merger" in run([str(prefix / "bin" / "project-merger"), "--help"]).stdout
    front_end = run(["/usr/bin/python3", str(prefix / "bin" / "project-description-merger.py"),
                     "--version"]).stdout
    assert front_end.strip(), "the seed-named front end printed no version"
