"""scripts/package: the Debian package, checked without touching the machine.

scripts/package builds hdtrace_<version>_<arch>.deb (in
$HDTRACE_PACKAGE_BUILD_DIR, default $HDTRACE_BUILD_DIR-package; or the test
takes the one $HDTRACE_PACKAGE_DEB names). Then:
- its control fields and contents are read with dpkg-deb;
- apt-get resolves its Depends in a simulation (-s) against an empty dpkg
  status, i.e. as on a system where nothing is installed yet, from this
  machine's package lists: every dependency exists in the archive and
  installs together with it;
- dpkg-deb extracts it into a scratch root, as any user can, and its
  maintainer scripts are read (the only configure step, the postinst, runs
  ldconfig);
- from that root, an MPI program links with `pkg-config --libs hdtrace-mpi`
  and is traced, and python3 imports hdtrace (with PYTHONPATH pointing at the
  root's /usr/lib/python3/dist-packages, which for the package installed in
  / is on python3's default path, checked as well);
- as root only: dpkg unpacks it for real into a second scratch root (--root,
  its own database), so dpkg's own unpacking and bookkeeping accept it (dpkg
  refuses --root to other users). Its helpers ldconfig and start-stop-daemon
  live in /usr/sbin, which the test puts on dpkg's PATH whatever the user's;
- and when the suite runs as root, the module runs once more as the
  unprivileged user nobody, so that it keeps passing for HPC users.
What this does not prove: that the install into / itself works (nothing
here writes to /usr or runs the postinst), nor anything about other releases.
"""
import os
import pathlib
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import pytest

import buildtree

REPO = pathlib.Path(__file__).resolve().parents[2]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=1200, **kwargs)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


#: dpkg runs ldconfig and start-stop-daemon from these; an ordinary user's
#: PATH (and sudo's) often lacks them.
SYSTEM_BINARIES = "/usr/sbin:/sbin"


@pytest.fixture(scope="module")
def package(build_dir, tmp_path_factory):
    given = os.environ.get("HDTRACE_PACKAGE_DEB")
    if given:
        deb = pathlib.Path(given)
        assert deb.is_file(), f"HDTRACE_PACKAGE_DEB={given} is not a file"
        return deb
    out = tmp_path_factory.mktemp("package")
    package_build = os.environ.get("HDTRACE_PACKAGE_BUILD_DIR", f"{build_dir}-package")
    # Without the training run: it changes the order of the libraries' code,
    # not which files the package holds, and the main tree checks it
    # (tests/mpiwrapper/test_training_run.py).
    result = run([str(REPO / "scripts" / "package"), "-DHDTRACE_PGO=OFF"],
                 env=dict(os.environ, HDTRACE_PACKAGE_BUILD_DIR=package_build,
                          HDTRACE_PACKAGE_OUT=str(out)))
    deb = pathlib.Path(result.stdout.strip().splitlines()[-1])
    assert deb.is_file() and deb.parent == out, result.stdout
    return deb


def control(deb, field):
    return run(["dpkg-deb", "-f", str(deb), field]).stdout.strip()


def multiarch():
    return run(["gcc", "-print-multiarch"]).stdout.strip()


def test_name_and_control_fields(package, build_dir):
    version = buildtree.cache_value(build_dir, "CMAKE_PROJECT_VERSION")
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    assert package.name == f"hdtrace_{version}_{arch}.deb"
    assert control(package, "Package") == "hdtrace"
    assert control(package, "Version") == version
    assert control(package, "Architecture") == arch
    depends = [d.strip() for d in control(package, "Depends").split(",")]
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for wanted in ("libopenmpi-dev", "openmpi-bin", "python3-numpy", f"python3 (>= {python})",
                   f"python3 (<< {sys.version_info[0]}.{sys.version_info[1] + 1})"):
        assert wanted in depends, depends
    # From dpkg-shlibdeps: the C library, libxml2 (project-merger, _core), Open MPI.
    names = {d.split()[0] for d in depends}
    assert {"libc6", "libxml2", "libopenmpi3"} <= names, depends


def test_contents_are_under_usr(package):
    listing = run(["dpkg-deb", "-c", str(package)]).stdout.splitlines()
    paths = [line.split()[-1] for line in listing]
    files = {path for path in paths if not path.endswith("/")}
    assert all(path.startswith("./usr/") for path in files), [p for p in files
                                                               if not p.startswith("./usr/")]
    lib = f"./usr/lib/{multiarch()}"
    expected = {
        f"{lib}/libhdtracempi.so", f"{lib}/libhdtracempi.a", f"{lib}/libhdtrace.a",
        f"{lib}/pkgconfig/hdtrace.pc", f"{lib}/pkgconfig/hdtrace-mpi.pc",
        f"{lib}/cmake/HDTrace/HDTraceConfig.cmake",
        "./usr/include/hdtrace/hdTrace.h", "./usr/include/hdtrace/hdtracempi.h",
        "./usr/bin/hdtrace", "./usr/bin/project-merger", "./usr/bin/project-description-merger.py",
        "./usr/lib/python3/dist-packages/hdtrace/__init__.py",
        "./usr/lib/python3/dist-packages/hdtrace/run.py",
        "./usr/share/man/man1/hdtrace.1.gz", "./usr/share/man/man1/project-merger.1.gz",
        "./usr/share/man/man3/libhdtracempi.3.gz",
    }
    assert expected <= files, sorted(expected - files)
    assert any(re.fullmatch(r"\./usr/lib/python3/dist-packages/hdtrace/_core\..*so", p)
               for p in files)
    assert not any("python3." in p for p in files), "a version-specific Python folder"


def test_depends_resolve_on_an_empty_system(package, tmp_path):
    if not any(pathlib.Path("/var/lib/apt/lists").glob("*_Packages*")):
        pytest.fail("no apt package lists in /var/lib/apt/lists: run apt-get update first")
    empty_status = tmp_path / "status"
    empty_status.write_text("")
    result = subprocess.run(
        ["apt-get", "-s", "-q", "--no-install-recommends",
         "-o", f"Dir::State::status={empty_status}", "-o", "Debug::NoLocking=1",
         "install", str(package)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    installed = re.findall(r"^Inst (\S+)", result.stdout, re.MULTILINE)
    assert "hdtrace" in installed
    for dependency in ("openmpi-bin", "libopenmpi-dev", "python3-numpy", "libxml2"):
        assert dependency in installed, installed


def maintainer_scripts_run_ldconfig_only(package, control):
    run(["dpkg-deb", "-e", str(package), str(control)])
    scripts = sorted(p.name for p in control.iterdir() if p.name.startswith(("pre", "post")))
    assert scripts == ["postinst", "postrm"], scripts
    for script in scripts:
        commands = [line.strip() for line in (control / script).read_text().splitlines()
                    if line.strip() and not line.startswith("#")]
        assert commands == ["set -e", 'if [ "$1" = "configure" ]; then' if script == "postinst"
                            else 'if [ "$1" = "remove" ]; then', "ldconfig", "fi"], commands


@pytest.fixture(scope="module")
def root(package, tmp_path_factory):
    """The package's files extracted by dpkg-deb into a scratch root (no
    privilege needed), its maintainer scripts checked."""
    maintainer_scripts_run_ldconfig_only(package, tmp_path_factory.mktemp("control"))
    root = tmp_path_factory.mktemp("root")
    run(["dpkg-deb", "-x", str(package), str(root)])
    listed = [line.split()[-1].lstrip(".") for line in
              run(["dpkg-deb", "-c", str(package)]).stdout.splitlines()]
    assert f"/usr/lib/{multiarch()}/libhdtracempi.so" in listed
    for path in listed:
        if path and not path.endswith("/"):
            assert os.path.lexists(str(root) + path), path
    return root


def test_dpkg_unpacks_it_into_a_root_of_its_own(package, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("dpkg --root --unpack needs root (dpkg refuses other users: 'requested "
                    "operation requires superuser privilege'); the files and maintainer "
                    "scripts are checked without it by the other tests")
    root = tmp_path / "root"
    admin = root / "var" / "lib" / "dpkg"
    for folder in ("info", "updates", "triggers"):
        (admin / folder).mkdir(parents=True)
    (admin / "status").write_text("")
    env = dict(os.environ, PATH=f"{os.environ.get('PATH', '/usr/bin:/bin')}:{SYSTEM_BINARIES}")
    run(["dpkg", f"--root={root}", f"--log={root / 'dpkg.log'}", "--unpack", str(package)],
        env=env)
    status = run(["dpkg", f"--root={root}", "-s", "hdtrace"], env=env).stdout
    assert "Status: install ok unpacked" in status
    listed = run(["dpkg", f"--root={root}", "-L", "hdtrace"], env=env).stdout.split()
    assert f"/usr/lib/{multiarch()}/libhdtracempi.so" in listed


def test_program_links_with_pkg_config_from_the_package(root, build_dir, tmp_path):
    env = dict(os.environ, PKG_CONFIG_PATH=str(root / "usr" / "lib" / multiarch() / "pkgconfig"))
    env.pop("PKG_CONFIG_SYSROOT_DIR", None)
    flags = run(["pkg-config", "--cflags", "--libs", "hdtrace-mpi"], env=env).stdout.split()
    assert any(flag.startswith("-L") and str(root) in flag for flag in flags), flags
    program = tmp_path / "mpi-io-example"
    run([buildtree.cache_value(build_dir, "MPI_C_COMPILER"), "-o", str(program),
         str(REPO / "examples" / "mpi" / "mpi-io-example.c"), *flags])
    traces = tmp_path / "traces"
    run([buildtree.cache_value(build_dir, "MPIEXEC_EXECUTABLE"), "-n", "2", str(program),
         str(tmp_path / "data.bin"), "4096"], cwd=tmp_path,
        env=dict(os.environ, HDTRACE_DIR=str(traces), OMPI_ALLOW_RUN_AS_ROOT="1",
                 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1"))
    assert len(list(traces.glob("mpi-io-example_*.trc"))) == 2
    for trace in traces.glob("*.trc"):
        tags = [element.tag for element in ET.parse(trace).getroot()]
        assert tags[0] == "Init" and tags[-1] == "Finalize" and "File_write_all" in tags


def test_python_imports_hdtrace_from_the_package(root):
    site = root / "usr" / "lib" / "python3" / "dist-packages"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    default_path = run(["/usr/bin/python3", "-c", "import sys; print('\\n'.join(sys.path))"],
                       env=env, cwd="/").stdout.splitlines()
    assert "/usr/lib/python3/dist-packages" in default_path
    where = run(["/usr/bin/python3", "-c", "import hdtrace, hdtrace._core; print(hdtrace.__file__)"],
                env=dict(env, PYTHONPATH=str(site)), cwd="/").stdout.strip()
    assert where == str(site / "hdtrace" / "__init__.py")
    usage = run([str(root / "usr" / "bin" / "hdtrace"), "run", "--help"], env=env).stdout
    assert "--launcher" in usage
    assert "project-merger" in run([str(root / "usr" / "bin" / "project-merger"), "--help"]).stdout
    page = run(["man", "-l", str(root / "usr" / "share" / "man" / "man3" / "libhdtracempi.3.gz")],
               env=dict(env, MANWIDTH="100")).stdout
    page = re.sub(".\b", "", page)  # no overstrike (bold) when not on a terminal
    for variable in ("HDTRACE_DIR", "HDTRACE_NESTED", "HDTRACE_WRITER_THREAD", "HDTRACE_CLOCK"):
        assert variable in page


def test_the_module_passes_for_a_user_without_root(package, build_dir):
    """HPC users have no root: as root, this module runs again as nobody, with
    the PATH of an ordinary user, on the package built above."""
    if os.geteuid() != 0:
        pytest.skip("switching to the user nobody needs root; run as another user, this "
                    "module is that check itself")
    nobody = pwd.getpwnam("nobody")
    # Beside the package, what the module reads, copied: the clone and the
    # build tree may sit below folders only root can enter (as the test's
    # own tmp_path does, below /tmp/pytest-of-root).
    work = pathlib.Path(tempfile.mkdtemp(prefix="hdtrace-as-nobody-", dir="/tmp"))
    try:
        repo = work / "repo"
        for relative in ("pytest.ini", "tests/conftest.py", "tests/buildtree.py",
                         "tests/package/test_package.py", "examples/mpi/mpi-io-example.c"):
            (repo / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / relative, repo / relative)
        (work / "build").mkdir()
        shutil.copyfile(build_dir / "CMakeCache.txt", work / "build" / "CMakeCache.txt")
        deb = work / package.name
        shutil.copyfile(package, deb)
        for folder, _, files in os.walk(work):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        (work / "home").mkdir()
        os.chown(work / "home", nobody.pw_uid, nobody.pw_gid)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(work / "home"),
               "TMPDIR": str(work / "home"), "LC_ALL": "C.UTF-8",
               "PYTHONDONTWRITEBYTECODE": "1", "HDTRACE_BUILD_DIR": str(work / "build"),
               "HDTRACE_PACKAGE_DEB": str(deb)}
        result = subprocess.run(
            ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}",
             "--clear-groups", "/usr/bin/python3", "-m", "pytest", "-q", "-rs",
             "-p", "no:cacheprovider", f"--basetemp={work / 'home' / 'pytest'}",
             str(repo / "tests" / "package" / "test_package.py")],
            cwd=work / "home", env=env, capture_output=True, text=True, timeout=1200)
        output = result.stdout + result.stderr
        assert result.returncode == 0, output
        # Everything but the two root-only tests ran and passed.
        summary = output.strip().splitlines()[-1]
        assert re.fullmatch(r"5 passed, 2 skipped in [0-9.]+s( \([0-9:]+\))?", summary), output
        assert "dpkg --root --unpack needs root" in output
        assert "switching to the user nobody needs root" in output
    finally:
        shutil.rmtree(work, ignore_errors=True)
