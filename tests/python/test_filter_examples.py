"""The filter examples of docs/user/filters.md, as the wrapper reads them
(hdtrace.native.read_filter is the wrapper's own parser): each file of
examples/filters/ is shown in the document as it is, reads without warning,
and chooses what its comment says. Also the groups the document lists."""
import pathlib
import re

import pytest

from hdtrace import native

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "filters"
DOCUMENT = ROOT / "docs" / "user" / "filters.md"


def example(name):
    rules = native.read_filter(str(EXAMPLES / name))
    assert list(rules.warnings) == []
    return rules


def test_every_example_is_shown_in_the_document_as_it_is():
    text = DOCUMENT.read_text()
    files = sorted(EXAMPLES.glob("*.filter"))
    assert files, f"no examples in {EXAMPLES}"
    for path in files:
        assert f"`{path.name}`:\n\n```\n{path.read_text()}```" in text, path.name


def test_no_polling():
    rules = example("no-polling.filter")
    for tag in ("Probe", "Iprobe", "Mprobe", "Improbe", "Test", "Testall", "Testany", "Testsome"):
        assert not rules.traces_call(tag), tag
    for tag in ("Mrecv", "Wait", "Waitall", "Send", "Isend", "File_write", "pwrite"):
        assert rules.traces_call(tag), tag


def test_no_datatypes():
    rules = example("no-datatypes.filter")
    for tag, *_ in native.dialect_calls():
        assert rules.traces_call(tag) == (not tag.startswith("Type_")), tag
    assert rules.traces_call("File_set_view") and rules.traces_call("File_write_at_all")


def test_io_only():
    rules = example("io-only.filter")
    io_tags = {tag for tag, _, layer, groups in native.dialect_calls()
               if layer != "mpi" or "mpiio" in groups}
    framing = {"Init", "Init_thread", "Finalize"}
    for tag, *_ in native.dialect_calls():
        assert rules.traces_call(tag) == (tag in io_tags or tag in framing), tag
    assert not rules.traces_file("/usr/lib/x86_64-linux-gnu/libm.so.6")
    assert not rules.traces_file("/proc/self/status")
    assert not rules.traces_file("/home/u/lib/__pycache__/m.cpython-311.pyc")
    assert rules.traces_file("/scratch/run/out.h5")
    assert not rules.has_ranks_rule


def test_scratch_files():
    rules = example("scratch-files.filter")
    assert rules.traces_file("/scratch/u/out.dat")
    assert rules.traces_file("/scratch/u/deep/er/out.dat")
    assert not rules.traces_file("/scratch/u/out.tmp")
    assert not rules.traces_file("/home/u/out.dat")
    assert all(rules.traces_call(tag) for tag, *_ in native.dialect_calls())


def test_some_ranks():
    rules = example("some-ranks.filter")
    assert [rank for rank in range(2000) if rules.traces_rank(rank)] == list(range(16)) + [1024]


def test_the_document_lists_every_group_and_every_layer():
    text = DOCUMENT.read_text()
    table = text[text.index("| group | calls |"):]
    table = table[:table.index("\n\n")]
    listed = set(re.findall(r"`([a-z0-9-]+)`", "".join(line.split("|")[1]
                                                    for line in table.splitlines()[2:])))
    groups = {name for name, _, _ in native.dialect_groups()}
    assert listed == groups
    layers = sorted(name for name, _, layer in native.dialect_groups() if layer)
    assert layers == ["hdf5", "mpi", "mpiio", "posix", "stdio"]
    assert "`mpi`, `mpiio`, `posix`, `stdio`" in text


def test_a_bad_filter_is_a_filter_error_naming_its_place(tmp_path):
    path = tmp_path / "bad.filter"
    path.write_text("# fine\nexclude group collective p2p\n")
    with pytest.raises(native.FilterError) as raised:
        native.read_filter(str(path))
    assert str(raised.value).startswith(f"{path}:2:26: unknown group 'p2p'; expected one of hdf5, mpi, ")
    assert isinstance(raised.value, ValueError)
