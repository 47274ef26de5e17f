"""The library layers' wrappers (POSIX and stdio from
mpiwrapper/posix_conf.py, HDF5 from mpiwrapper/hdf5/hdf5_conf.py) are
generated from configurations checked against the definition: the generator
refuses an entry the definition contradicts, naming the function and the
key, and writes nothing; each committed configuration gives every call of
the layers whose wrappers key names it a function, and no other."""
import subprocess
import sys

import pytest

from buildtree import REPO_ROOT

GENERATOR = REPO_ROOT / "scripts" / "generate-library-wrappers.py"
CONF = REPO_ROOT / "mpiwrapper" / "posix_conf.py"
HDF5_CONF = REPO_ROOT / "mpiwrapper" / "hdf5" / "hdf5_conf.py"
sys.path.insert(0, str(REPO_ROOT / "format"))
import dialect  # noqa: E402


def generate(tmp_path, conf_text, key="mpiwrapper/posix_conf.py"):
    conf = tmp_path / "conf.py"
    conf.write_text(conf_text)
    header, source = tmp_path / "Functions.hpp", tmp_path / "Wrappers.cpp"
    result = subprocess.run([sys.executable, str(GENERATOR), "--conf-key", key, str(conf),
                             str(header), str(source)], capture_output=True, text=True)
    return result, header, source


def written_attributes(record, call):
    """The attribute names a generated record writes, in order: one by one
    (writer.attribute) or as a table of numbers (writer.attributes), each
    table given to the writer with as many values; no text in a table."""
    names = []
    lines = record.splitlines()
    for number, line in enumerate(lines):
        if "writer.attribute(" in line:
            names.append(line.split('"')[1])
        elif "std::string_view kNames" in line:
            table = line.split("[]")[0].split()[-1]
            listed = line.split("{")[1].split("}")[0].split('"')[1::2]
            given = [later for later in lines[number:] if f"writer.attributes({table}," in later]
            assert given and given[0].rstrip().endswith(f", {len(listed)});"), line
            kinds = {attribute.name: attribute.kind for attribute in call.attributes}
            assert all(kinds[name] in dialect.NUMBER_KINDS for name in listed), line
            names += listed
    return names


def test_the_configuration_gives_every_call_of_its_layers_its_attributes(tmp_path):
    result, header, source = generate(tmp_path, CONF.read_text())
    assert result.returncode == 0, result.stderr
    text = source.read_text()
    definition = dialect.load()
    for tag, call in definition.calls.items():
        if definition.layer_of(call).wrappers != "mpiwrapper/posix_conf.py":
            assert f"PosixRecord_{tag} " not in text
            continue
        record = text[text.index(f"struct PosixRecord_{tag} {{"):]
        record = record[:record.index("\n};")]
        # The file id first and the errno last (PosixCall), the rest here in order.
        written = written_attributes(record, call)
        assert [call.attribute_names[0]] + written + [call.written_on_failure] == \
            call.attribute_names, tag
    for function in ("open64", "pwrite64", "fseeko64", "fflush"):
        assert f'extern "C" ' in text and f" {function}(" in text
        assert f'lookUp(found.{function}, library, "{function}");' in text
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
     "the call fflush of the layer stdio has no function in mpiwrapper/posix_conf.py"),
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


def test_the_hdf5_configuration_gives_every_hdf5_call_its_attributes(tmp_path):
    key = "mpiwrapper/hdf5/hdf5_conf.py"
    result, header, source = generate(tmp_path, HDF5_CONF.read_text(), key)
    assert result.returncode == 0, result.stderr
    text = source.read_text()
    definition = dialect.load()
    hdf5 = [tag for tag, call in definition.calls.items()
            if definition.layer_of(call).wrappers == key]
    assert hdf5 and all(tag.startswith("H5") for tag in hdf5)
    for tag, call in definition.calls.items():
        if tag not in hdf5:
            assert f"Hdf5Record_{tag} " not in text
            continue
        record = text[text.index(f"struct Hdf5Record_{tag} {{"):]
        record = record[:record.index("\n};")]
        assert 'kLayer = "hdf5"' in record, tag
        # Every attribute from the shape's values, the error last (Hdf5Call).
        written = written_attributes(record, call)
        assert written + [call.written_on_failure] == call.attribute_names, tag
    assert 'extern "C" herr_t H5Dwrite(hid_t dataset' in text
    assert "(*H5Dwrite)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *)" in header.read_text()
    # The observed functions: defined in the same source (a static link takes
    # them with the recorded ones), looked up, with no record of their own.
    observed = ['H5Sselect_hyperslab', 'H5Tset_size', 'H5Pset', 'H5close']
    for function in observed:
        assert f'extern "C" herr_t {function}(' in text, function
        assert f'lookUp(found.{function}, library, "{function}");' in text, function
        assert f"Hdf5Record_{function} " not in text, function
    assert ("return changes<SelectedElements>(space, [&] { return real(space, op, start, "
            "stride, count, block); });") in text
    # HDF5 1.6's deprecated forms: their wrappers, looks-up and table entries
    # only where HDF5 declares them.
    condition = "#if !defined(H5_NO_DEPRECATED_SYMBOLS)\n"
    deprecated = ("H5Dcreate1", "H5Dopen1", "H5Gcreate1", "H5Gopen1", "H5Acreate1",
                  "H5Aopen_name")
    for function in deprecated:
        assert f'{condition}extern "C" hid_t {function}(' in text, function
        assert f'{condition}    lookUp(found.{function}, library, "{function}");\n#endif\n' in text
        assert f"{condition}    hid_t (*{function})(" in header.read_text(), function
    # The look-up and the wrapper of each, nothing else.
    assert text.count("#if ") == text.count("#endif") == 2 * len(deprecated)
    listed = subprocess.run([sys.executable, str(GENERATOR), "--list-functions", str(HDF5_CONF)],
                            capture_output=True, text=True, check=True).stdout.strip().split(";")
    assert set(observed) <= set(listed) and "H5Dwrite" in listed


@pytest.mark.parametrize("old, new, message", [
    ("'H5Dread': dict(tag='H5Dread'", "'H5Dread': dict(tag='pread'",
     "H5Dread: tag = \"pread\" is a call of the layer posix, whose wrappers "
     "mpiwrapper/posix_conf.py generates, not mpiwrapper/hdf5/hdf5_conf.py"),
    ("'H5Aread': dict(tag='H5Aread', shape='attribute-transfer'",
     "'H5Aread': dict(tag='H5Aread', shape='named'", "H5Aread: shape = \"named\" writes"),
    ("'H5Dset_extent': dict(tag='H5Dset_extent'", "'H5Dset_extents': dict(tag='H5Dset_extents'",
     "defines no call H5Dset_extents"),
    ("PREFIX = 'Hdf5'\n", "", "mpiwrapper/hdf5/hdf5_conf.py: no PREFIX"),
    ("    'H5Tpack': _changes(", "    'H5Dclose': _changes(",
     "OBSERVED H5Dclose: also in FUNCTIONS (a function is recorded or observed)"),
    ("'H5close': dict(returns='herr_t'", "'H5close': dict(tag='H5Fclose', returns='herr_t'",
     "OBSERVED H5close: has a tag, but an observed function is not recorded"),
    ("'H5close': dict(returns='herr_t', params=[],", "'H5close': dict(params=[],",
     "OBSERVED H5close: no returns"),
    ("only_if=DEPRECATED),\n    'H5Dopen1'", "only_if=True),\n    'H5Dopen1'",
     "H5Dcreate1: only_if is a preprocessor condition, as text"),
])
def test_an_hdf5_entry_the_definition_contradicts_is_refused(tmp_path, old, new, message):
    text = HDF5_CONF.read_text()
    assert old in text
    result, header, source = generate(tmp_path, text.replace(old, new, 1),
                                      "mpiwrapper/hdf5/hdf5_conf.py")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not header.exists() and not source.exists()


def test_every_layers_wrappers_configuration_exists():
    definition = dialect.load()
    for key, layer in definition.layers.items():
        assert (REPO_ROOT / layer.wrappers).is_file(), (key, layer.wrappers)
