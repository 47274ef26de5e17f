"""native.read_attribute_codes: chosen attributes of a trace's calls as
codes into their distinct texts, from XML and compact traces alike, against
the same trace read call by call (native.TraceReader)."""
import pytest

from hdtrace import native
from hdtrace.errors import ReadError

# In the layout the writer's XML mode gives (so that it converts to compact).
TRACE = """<?xml version="1.0" encoding="UTF-8"?>
<Program timeAdjustment='1700000000'>
<Init time='0.000001000' end='0.000002000'/>
<H5Dcreate2 fid='3' dataset='0' name='grid' layout='chunked' typeSize='8' elements='64' time='0.000010000' end='0.000020000'/>
<H5Dwrite fid='3' dataset='0' size='256' memTypeSize='4' fileTypeSize='8' transfer='collective' time='0.000030000' end='0.000040000'/>
<H5Dwrite fid='3' dataset='0' size='512' memTypeSize='8' fileTypeSize='8' transfer='independent' time='0.000050000' end='0.000060000'/>
<H5Dopen2 fid='3' dataset='1' name='a &amp; b' time='0.000070000' end='0.000080000'/>
<H5Dread fid='3' dataset='1' size='512' memTypeSize='8' fileTypeSize='8' transfer='collective' time='0.000090000' end='0.000100000'/>
<H5Dwrite error='-1' time='0.000110000' end='0.000120000'/>
<Finalize time='0.000200000' end='0.000300000'/>
</Program>
"""
ATTRIBUTES = ["dataset", "name", "layout", "transfer", "memTypeSize", "fileTypeSize", "absent"]


def traces(tmp_path):
    xml = tmp_path / "app_h_0_0.hdf5.trc"
    xml.write_text(TRACE)
    compact = tmp_path / "app_h_0_0.hdf5.ctrc"
    native.convert_trace(str(xml), str(compact), "compact")
    return [str(xml), str(compact)]


def decoded(read):
    """[(name, {attribute: text})] from the codes."""
    calls = []
    for index, name_code in enumerate(read["name_code"].tolist()):
        values = {}
        for attribute, codes in read["codes"].items():
            code = int(codes[index])
            if code >= 0:
                values[attribute] = read["texts"][attribute][code]
        calls.append((read["names"][name_code], values))
    return calls


@pytest.mark.parametrize("names", [[], ["H5Dwrite", "H5Dread"]])
def test_the_codes_give_every_value_the_trace_holds_in_either_form(tmp_path, names):
    for path in traces(tmp_path):
        read = native.read_attribute_codes(path, names, ATTRIBUTES)
        # The call-by-call reader gives numbers as ints; the codes, the text written.
        expected = [(name, {key: str(value) for key, value in attrs.items() if key in ATTRIBUTES})
                    for name, start, _, attrs, _, _ in native.TraceReader(path, names)
                    if start is not None]
        assert decoded(read) == expected, path
        assert len(expected) == (8 if not names else 4)
        assert read["damage"] is None
        # Each distinct value once, as first met.
        assert read["texts"]["transfer"] == ["collective", "independent"]
        assert read["texts"]["absent"] == [] and set(read["codes"]["absent"].tolist()) == {-1}
        if not names:
            assert read["texts"]["name"] == ["grid", "a & b"]


def test_a_damaged_trace_is_an_error_or_read_up_to_the_damage(tmp_path):
    path = tmp_path / "app_h_0_0.hdf5.trc"
    path.write_text(TRACE[:TRACE.index("<H5Dopen2") + 30])
    with pytest.raises(ReadError) as raised:
        native.read_attribute_codes(str(path), [], ATTRIBUTES)
    assert str(path) in str(raised.value)
    read = native.read_attribute_codes(str(path), [], ATTRIBUTES, partial=True)
    assert [name for name, _ in decoded(read)] == ["Init", "H5Dcreate2", "H5Dwrite", "H5Dwrite"]
    assert str(path) in read["damage"]
