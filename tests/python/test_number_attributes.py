"""Digits beyond 64 bits: an error in the attributes the wrapper
writes as numbers, exact text (and an exact Python int) in a program's own
attributes, which libhdtrace's C API writes as given. The readers' list of
number attributes is checked against wrapper_conf.py, the wrapper's own."""
import importlib.util
from pathlib import Path

import pytest

import hdtrace
from hdtrace import _core

ROOT = Path(__file__).resolve().parents[2]
BEYOND_64_BITS = "1" + "0" * 25
# Kinds of wrapper_conf.KINDS whose values are text (names, lists), not numbers.
TEXT_KINDS = {"string", "whence", "op", "lockType", "groupRanks"}
# Attributes of the child elements the wrapper writes (<For>, <Data>).
CHILD_NUMBER_ATTRIBUTES = {"rid", "offset", "size", "count", "tid"}


def wrapper_number_attributes():
    spec = importlib.util.spec_from_file_location("wrapper_conf",
                                                  ROOT / "mpiwrapper" / "wrapper_conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    names = set(CHILD_NUMBER_ATTRIBUTES)
    for entry in conf.FUNCTIONS.values():
        for name, kind, *_ in entry.get("attrs", []):
            if kind not in TEXT_KINDS:
                names.add(name)
    return sorted(names)


def write_trace(path, attribute, value):
    path.write_text("<?xml version='1.0' encoding='UTF-8'?>\n<Program>\n"
                    f"<Send {attribute}='{value}' time='1.000000000' end='1.000000100'/>\n"
                    "</Program>\n")
    return path


def read_events(path):
    return list(_core.TraceReader(str(path)))


def test_the_wrapper_writes_numbers_in_dozens_of_attributes():
    names = wrapper_number_attributes()
    assert {"size", "offset", "count", "toRank", "tid", "cid", "fid", "rid"} <= set(names)
    assert len(names) >= 30, names


@pytest.mark.parametrize("attribute", wrapper_number_attributes())
def test_a_wrapper_number_beyond_64_bits_is_an_error_in_every_reader(tmp_path, attribute):
    trace = write_trace(tmp_path / "app_h_0_0.trc", attribute, BEYOND_64_BITS)
    for read in (read_events, lambda path: _core.read_columns(str(path), reader="libxml2"),
                 lambda path: _core.read_columns(str(path))):
        with pytest.raises(hdtrace.ReadError) as caught:
            read(trace)
        assert caught.value.line == 3
        assert caught.value.problem == (f"attribute {attribute}='{BEYOND_64_BITS}' "
                                        "does not fit in 64 bits")


@pytest.mark.parametrize("value", [BEYOND_64_BITS, "-" + BEYOND_64_BITS, "18446744073709551616"])
def test_a_programs_own_attribute_keeps_every_digit(tmp_path, value):
    trace = write_trace(tmp_path / "app_h_0_0.trc", "checksum", value)
    (event,) = read_events(trace)
    attributes = event[3]
    assert attributes["checksum"] == int(value)
    assert isinstance(attributes["checksum"], int)
    # The table does not read the attribute, and holds the call.
    columns = _core.read_columns(str(trace))
    assert list(columns["names"]) == ["Send"] and len(columns["name_code"]) == 1
