"""`cmake --install`: what a user gets, and that it works wherever it is moved.

The build is installed with `--prefix` (no DESTDIR) into a scratch directory,
and the whole tree is then moved to another directory. From there: an MPI
program links with pkg-config (the archive with and without --static, and
the shared library), a separate CMake project uses find_package(HDTrace),
the installed `hdtrace` command runs a program with `hdtrace run`, and
Python imports the package through PYTHONPATH. A DESTDIR install with the
default prefix checks that /usr/local needs no variable.
"""
import os
import pathlib
import re
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ET

import pytest

import buildtree

REPO = pathlib.Path(__file__).resolve().parents[2]
PYTHON_DIR = pathlib.Path("lib/python3/dist-packages")


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


def mpi_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HDTRACE_") and k not in ("LD_PRELOAD", "PYTHONPATH")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none")
    env.update(extra)
    return env


class Installed:
    def __init__(self, original, prefix, libdir):
        self.original = original  # where it was installed, gone now
        self.prefix = prefix      # where it is
        self.libdir = libdir


@pytest.fixture(scope="module")
def installed(build_dir, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("install")
    original = scratch / "first" / "hdtrace"
    env = {k: v for k, v in os.environ.items() if k != "DESTDIR"}
    run(["cmake", "--install", str(build_dir), "--prefix", str(original)], env=env)
    moved = scratch / "elsewhere" / "deeper" / "hdtrace-moved"
    moved.parent.mkdir(parents=True)
    shutil.move(str(original), str(moved))
    assert not original.exists()
    return Installed(original, moved, moved / buildtree.cache_value(build_dir, "CMAKE_INSTALL_LIBDIR"))


def test_installs_everything_under_the_prefix(installed):
    prefix, libdir = installed.prefix, installed.libdir
    package = prefix / PYTHON_DIR / "hdtrace"
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
        package / "__init__.py", package / "run.py", package / "_paths.py",
        package / "view" / "timeline.js",
        prefix / "share" / "man" / "man1" / "hdtrace.1.gz",
        prefix / "share" / "man" / "man1" / "project-merger.1.gz",
        prefix / "share" / "man" / "man3" / "libhdtracempi.3.gz",
    ]
    missing = [str(path) for path in expected if not path.exists()]
    assert not missing, f"not installed: {missing}"
    assert list(package.glob("_core*.so")), "no hdtrace._core extension installed"
    # Nothing was written outside the prefix: the tree holds exactly these top folders.
    assert sorted(p.name for p in prefix.iterdir()) == ["bin", "include", "lib", "share"]


def test_no_installed_text_file_names_the_install_prefix(installed):
    needle = str(installed.original).encode()
    offenders = []
    for path in installed.prefix.rglob("*"):
        if path.is_file() and path.suffix not in (".a", ".so", ".gz") and \
                path.name != "project-merger" and not path.name.endswith(".pyc"):
            if needle in path.read_bytes():
                offenders.append(str(path.relative_to(installed.prefix)))
    assert not offenders, f"these files still name {installed.original}: {offenders}"


# The testing knobs' code (mpiwrapper/testknobs) and the variables it reads:
# linked into test programs only, never in a library a user gets.
KNOB_SYMBOLS = re.compile(r"ClockSkew|clockSkewOf|clockShiftOf|straddleBefore|hdtracempi_test_seams")
KNOB_VARIABLES = (b"HDTRACE_CLOCK_SKEW", b"HDTRACE_TEST_INIT_STRADDLE")


def knob_symbols_defined(library):
    symbols = run(["nm", "-C", "--defined-only", str(library)]).stdout
    return sorted({match.group(0) for match in KNOB_SYMBOLS.finditer(symbols)})


def test_installed_libraries_hold_no_testing_knobs(installed, build_dir):
    # The same look finds the knobs where they are, in the test-only library.
    knobs = build_dir / "mpiwrapper" / "testknobs" / "libhdtracempi_testknobs.so"
    assert knobs.is_file(), f"{knobs} was not built"
    assert len(knob_symbols_defined(knobs)) >= 4, knob_symbols_defined(knobs)
    assert all(variable in knobs.read_bytes() for variable in KNOB_VARIABLES)
    for name in ("libhdtrace.a", "libhdtracempi.a", "libhdtracempi.so"):
        library = installed.libdir / name
        assert knob_symbols_defined(library) == [], f"{name} holds testing knobs"
        held = [variable for variable in KNOB_VARIABLES if variable in library.read_bytes()]
        assert held == [], f"{name} reads the testing variables {held}"
    assert not list((installed.prefix / "include").rglob("ClockSkew*")), "a knob's header is installed"


# The reader's public API: the column read, the event reader, the call tree (with
# the layer traces), the run table, the project reader, the compact container, the
# numbers and the every-core loop the clocks share, and what they take and give.
# Its scanner and parsers stay inside.
READER_HEADERS = ["CallCosts.hpp", "CallTree.hpp", "ColumnMemory.hpp", "DecimalNumber.hpp",
                  "Event.hpp", "EventColumns.hpp", "EveryCore.hpp", "FilteredTrace.hpp",
                  "FrameFile.hpp", "IoCalls.hpp", "LayerTraces.hpp", "Project.hpp",
                  "ReadError.hpp", "RunTable.hpp", "SortedRuns.hpp", "TraceConversion.hpp",
                  "TraceForm.hpp", "TraceOptions.hpp", "TraceReader.hpp", "TraceSlices.hpp"]


def test_installed_reader_headers_are_the_public_api_and_stand_alone(installed, tmp_path):
    include = installed.prefix / "include"
    headers = sorted(p.name for p in (include / "hdtrace" / "reader").iterdir())
    assert headers == READER_HEADERS
    # Each compiles on its own from the moved tree: none needs a header left inside.
    for header in headers + [f"../clocks/{p.name}" for p in (include / "hdtrace" / "clocks").iterdir()]:
        source = tmp_path / "alone.cpp"
        source.write_text(f"#include <hdtrace/reader/{header}>\n")
        run(["c++", "-std=c++17", "-fsyntax-only", f"-I{include}", str(source)])


def pkg_config(installed, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=str(installed.libdir / "pkgconfig"))
    env.pop("PKG_CONFIG_SYSROOT_DIR", None)
    return run(["pkg-config", *args], env=env).stdout.split()


def trace_example(build_dir, program, tmp_path, env=None):
    traces = tmp_path / "traces"
    run([buildtree.cache_value(build_dir, "MPIEXEC_EXECUTABLE"), "-n", "2", str(program),
         str(tmp_path / "data.bin"), "4096"], cwd=tmp_path,
        env=mpi_env(HDTRACE_DIR=str(traces), **(env or {})))
    names = sorted(p.name for p in traces.glob("*.trc"))
    assert len(names) == 2 and all(n.startswith(program.name + "_") for n in names), names
    for trace in traces.glob("*.trc"):
        tags = [element.tag for element in ET.parse(trace).getroot()]
        assert tags[0] == "Init" and tags[-1] == "Finalize"
        assert "File_write_all" in tags and "File_read_at" in tags


@pytest.mark.parametrize("static", [True, False], ids=["static", "plain"])
def test_pkg_config_links_the_archive_from_the_moved_tree(installed, build_dir, tmp_path, static):
    flags = pkg_config(installed, *(["--static"] if static else []), "--cflags", "--libs",
                       "hdtrace-mpi")
    library_dirs = [flag[2:] for flag in flags if flag.startswith("-L")]
    assert library_dirs and all(pathlib.Path(d).resolve() == installed.libdir.resolve()
                                for d in library_dirs), flags
    program = tmp_path / "mpi-io-example"
    run([buildtree.cache_value(build_dir, "MPI_C_COMPILER"), "-o", str(program),
         str(REPO / "examples" / "mpi" / "mpi-io-example.c")] + flags)
    assert not any("hdtracempi" in line for line in run(["ldd", str(program)]).stdout.splitlines())
    trace_example(build_dir, program, tmp_path)


def test_pkg_config_links_the_shared_library_from_the_moved_tree(installed, build_dir, tmp_path):
    libdir = pkg_config(installed, "--variable=libdir", "hdtrace-mpi")[0]
    assert pathlib.Path(libdir).resolve() == installed.libdir.resolve()
    program = tmp_path / "mpi-io-example-shared"
    run([buildtree.cache_value(build_dir, "MPI_C_COMPILER"), "-o", str(program),
         str(REPO / "examples" / "mpi" / "mpi-io-example.c"),
         *pkg_config(installed, "--cflags", "hdtrace-mpi"),
         f"-L{libdir}", "-lhdtracempi", f"-Wl,-rpath,{libdir}"])
    linked = run(["ldd", str(program)]).stdout
    assert re.search(rf"libhdtracempi\.so => {re.escape(str(pathlib.Path(libdir).resolve()))}",
                     linked.replace(libdir, str(pathlib.Path(libdir).resolve()))), linked
    trace_example(build_dir, program, tmp_path)


def test_find_package_builds_programs_against_the_moved_tree(installed, build_dir, tmp_path):
    source = tmp_path / "consumer"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(textwrap.dedent("""\
        cmake_minimum_required(VERSION 3.19)
        project(consumer LANGUAGES C CXX)
        find_package(HDTrace REQUIRED)
        add_executable(consumer consumer.c)
        target_link_libraries(consumer PRIVATE HDTrace::hdtrace)
        add_executable(mpi-consumer mpi-consumer.c)
        target_link_libraries(mpi-consumer PRIVATE HDTrace::hdtracempi)
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
    (source / "mpi-consumer.c").write_text(textwrap.dedent("""\
        #include <mpi.h>
        int main(int argc, char **argv) {
            MPI_Init(&argc, &argv);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Finalize();
            return 0;
        }
        """))
    build = tmp_path / "consumer-build"
    run(["cmake", "-S", str(source), "-B", str(build), f"-DCMAKE_PREFIX_PATH={installed.prefix}"])
    run(["cmake", "--build", str(build)])
    run([str(build / "consumer"), str(tmp_path)])
    root = ET.parse(tmp_path / "consumer_host_0_0.trc").getroot()
    assert [(e.tag, e.get("ok")) for e in root] == [("Installed", "1")]

    traces = tmp_path / "mpi-traces"
    run([buildtree.cache_value(build_dir, "MPIEXEC_EXECUTABLE"), "-n", "2", str(build / "mpi-consumer")],
        env=mpi_env(HDTRACE_DIR=str(traces)))
    for trace in traces.glob("mpi-consumer_*.trc"):
        assert [e.tag for e in ET.parse(trace).getroot()] == ["Init", "Barrier", "Finalize"]
    assert len(list(traces.glob("mpi-consumer_*.trc"))) == 2


def test_installed_hdtrace_command_traces_a_program(installed, build_dir, tmp_path):
    program = tmp_path / "mpi-io-example"
    run([buildtree.cache_value(build_dir, "MPI_C_COMPILER"), "-o", str(program),
         str(REPO / "examples" / "mpi" / "mpi-io-example.c")])
    hdtrace = installed.prefix / "bin" / "hdtrace"
    assert "usage" in run([str(hdtrace), "--help"], env=mpi_env()).stdout.lower()
    result = run([str(hdtrace), "run", "-n", "2", "-o", "run", "--", str(program),
                  str(tmp_path / "data.bin"), "4096"], cwd=tmp_path, env=mpi_env())
    # The preloaded library is the moved tree's: the command found it from its own place.
    assert len(list((tmp_path / "run").glob("mpi-io-example_*.trc"))) == 2
    assert "project        run/mpi-io-example.proj" in result.stderr
    stats = run([str(hdtrace), "stats", str(tmp_path / "run" / "mpi-io-example.proj")],
                env=mpi_env())
    assert "File_write_all" in stats.stdout
    assert "project-merger" in run([str(installed.prefix / "bin" / "project-merger"),
                                    "--help"]).stdout
    front_end = run(["/usr/bin/python3",
                     str(installed.prefix / "bin" / "project-description-merger.py"),
                     "--version"]).stdout
    assert front_end.strip(), "project-description-merger.py printed no version"


def test_installed_hdtrace_preloads_the_library_installed_with_it(installed, tmp_path):
    hdtrace = installed.prefix / "bin" / "hdtrace"
    code = "from hdtrace import run; print(run.default_library())"
    env = mpi_env(PYTHONPATH=str(installed.prefix / PYTHON_DIR))
    found = run(["/usr/bin/python3", "-c", code], env=env, cwd="/").stdout.strip()
    assert pathlib.Path(found) == installed.libdir / "libhdtracempi.so"
    assert hdtrace.is_file()


def test_python_imports_the_moved_package_through_pythonpath(installed):
    site = installed.prefix / PYTHON_DIR
    env = mpi_env(PYTHONPATH=str(site))
    where = run(["/usr/bin/python3", "-c", "import hdtrace, hdtrace._core; print(hdtrace.__file__)"],
                env=env, cwd="/").stdout.strip()
    assert where == str(site / "hdtrace" / "__init__.py")


def test_default_prefix_needs_no_pythonpath(build_dir, tmp_path):
    """/usr/local: a .pth in the interpreter's own site folder points at lib/python3/dist-packages."""
    root = tmp_path / "root"
    run(["cmake", "--install", str(build_dir), "--prefix", "/usr/local"],
        env=dict(os.environ, DESTDIR=str(root)))
    local = root / "usr" / "local"
    version = run(["/usr/bin/python3", "-c",
                   "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"]).stdout.strip()
    site = local / "lib" / f"python{version}" / "dist-packages"
    assert (site / "hdtrace.pth").read_text().strip() == "../../python3/dist-packages"
    # site.addsitedir does for this folder what Debian's python3 does for /usr/local's.
    code = (f"import site; site.addsitedir({str(site)!r}); import hdtrace; "
            "print(hdtrace.__file__)")
    where = run(["/usr/bin/python3", "-c", code], env=mpi_env(), cwd="/").stdout.strip()
    assert where == str(local / PYTHON_DIR / "hdtrace" / "__init__.py")
    flags = run(["pkg-config", "--libs", "hdtrace-mpi"],
                env=dict(os.environ, PKG_CONFIG_PATH=str(local / "lib" / "pkgconfig"))).stdout
    assert f"-L{local}/lib/pkgconfig/../../lib" in flags or f"-L{local}/lib " in flags, flags
