"""The POSIX and stdio wrappers are generated from mpiwrapper/posix_conf.py,
checked against the definition: the generator refuses an entry the
definition contradicts, naming the function and the key, and writes
nothing; the committed configuration gives every call of the C library
layers a function."""
import subprocess
import sys

import pytest

from buildtree import REPO_ROOT

GENERATOR = REPO_ROOT / "scripts" / "generate-posix-wrappers.py"
CONF = REPO_ROOT / "mpiwrapper" / "posix_conf.py"
sys.path.insert(0, str(REPO_ROOT / "format"))
import dialect  # noqa: E402


def generate(tmp_path, conf_text):
    conf = tmp_path / "posix_conf.py"
    conf.write_text(conf_text)
    header, source = tmp_path / "PosixFunctions.hpp", tmp_path / "PosixWrappers.cpp"
    result = subprocess.run([sys.executable, str(GENERATOR), str(conf), str(header), str(source)],
                            capture_output=True, text=True)
    return result, header, source


def test_the_configuration_gives_every_c_library_call_its_attributes(tmp_path):
    result, header, source = generate(tmp_path, CONF.read_text())
    assert result.returncode == 0, result.stderr
    text = source.read_text()
    definition = dialect.load()
    for tag, call in definition.calls.items():
        if not definition.layer_of(call).c_library:
            assert f"PosixRecord_{tag} " not in text
            continue
        record = text[text.index(f"struct PosixRecord_{tag} {{"):]
        record = record[:record.index("\n};")]
        # The file id first and the errno last (PosixCall), the rest here in order.
        written = [line.split('"')[1] for line in record.splitlines()
                   if "writer.attribute(" in line]
        assert [call.attribute_names[0]] + written + [call.written_on_failure] == \
            call.attribute_names, tag
    for function in ("open64", "pwrite64", "fseeko64", "fflush"):
        assert f'extern "C" ' in text and f" {function}(" in text
        assert f'lookUp(found.{function}, "{function}");' in text
        assert f"(*{function})(" in header.read_text()


@pytest.mark.parametrize("old, new, message", [
    ("'pwrite64': dict(tag='pwrite'", "'pwrite64': dict(tag='pwrites'",
     "pwrite64: tag = \"pwrites\""),
    ("'lseek': dict(tag='lseek', shape='seek'", "'lseek': dict(tag='lseek', shape='access'",
     "lseek: shape = \"access\" writes"),
    ("'fsync': dict(tag='fsync'", "'fsync': dict(tag='Barrier'",
     "fsync: tag = \"Barrier\" is a call of the layer mpi"),
    ("    'fflush': dict(tag='fflush', shape='plain', returns='int', params=[('FILE *', 'stream')],\n"
     "                   body='flushStream<Record>(real, stream)'),\n", "",
     "the call fflush of a C library layer has no function"),
    ("'size': 'values.done < 0 ? 0 : values.done'}", "}", "writes ['fid', 'offset', 'asked', "
     "'errno']"),
])
def test_an_entry_the_definition_contradicts_is_refused(tmp_path, old, new, message):
    text = CONF.read_text()
    assert old in text
    result, header, source = generate(tmp_path, text.replace(old, new, 1))
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not header.exists() and not source.exists()


def test_the_build_exports_every_function_of_the_configuration():
    listed = subprocess.run([sys.executable, str(GENERATOR), "--list-functions", str(CONF)],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert listed.split(";")[:3] == ["open", "open64", "openat"]
    assert "fflush" in listed.split(";") and len(listed.split(";")) == 35
