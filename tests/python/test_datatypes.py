"""Datatypes of every Appendix B combiner against hand-computed type maps."""
import pytest

import hdtrace

TYPES = """
  <NAMED id='1' name='MPI_INT'/>
  <NAMED id='2' name='MPI_DOUBLE'/>
  <NAMED id='3' name='MPI_DOUBLE_INT'/>
  <NAMED id='4' name='MPI_FANCY'/>
  <DUP id='10' name='' oldType='1'/>
  <CONTIGUOUS id='11' name='' count='3' oldType='1'/>
  <VECTOR id='12' name='' count='3' blocklength='2' stride='4' oldType='1'/>
  <HVECTOR id='13' name='' count='2' blocklength='1' stride='10' oldType='2'/>
  <HVECTOR_INTEGER id='14' name='' count='2' blocklength='1' stride='-8' oldType='1'/>
  <RESIZED id='15' name='' lowerBound='-4' extend='16' oldType='1'/>
  <INDEXED id='16' name='' count='2' oldType='1'>
    <BLOCK len='2' index='5'/>
    <BLOCK len='1' index='0'/>
  </INDEXED>
  <HINDEXED id='17' name='' count='2' oldType='2'>
    <BLOCK len='1' index='3'/>
    <BLOCK len='2' index='16'/>
  </HINDEXED>
  <INDEXED_BLOCK id='18' name='' count='2' oldType='1' blockLength='2'>
    <Block displacement='1'/>
    <Block displacement='4'/>
  </INDEXED_BLOCK>
  <STRUCT id='19' name='pair' count='2'>
    <Type id='1' displacement='0' blocklen='2'/>
    <Type id='2' displacement='16' blocklen='1'/>
  </STRUCT>
  <STRUCT_INTEGER id='20' name='' count='1'>
    <Type id='12' displacement='100' blocklen='1'/>
  </STRUCT_INTEGER>
  <SUBARRAY id='21' name='' count='2' ndims='2' order='MPI_ORDER_C' oldType='1'>
    <Dimension size='4' subsize='2' start='1'/>
    <Dimension size='3' subsize='2' start='1'/>
  </SUBARRAY>
  <SUBARRAY id='22' name='' count='2' ndims='2' order='MPI_ORDER_FORTRAN' oldType='1'>
    <Dimension size='4' subsize='2' start='1'/>
    <Dimension size='3' subsize='2' start='1'/>
  </SUBARRAY>
  <DARRAY id='23' name='' size='4' order='MPI_ORDER_C' rank='3' dims='2' oldType='1'>
    <Dimension gsize='4' distrib='MPI_DISTRIBUTE_BLOCK' darg='MPI_DISTRIBUTE_DFLT_DARG' psize='2'/>
    <Dimension gsize='6' distrib='MPI_DISTRIBUTE_CYCLIC' darg='1' psize='2'/>
  </DARRAY>
  <CONTIGUOUS id='24' name='' count='2' oldType='4'/>
  <HINDEXED_BLOCK id='25' name='' count='2' oldType='2' blockLength='1'>
    <Block displacement='0'/>
    <Block displacement='8'/>
  </HINDEXED_BLOCK>
"""

# id: (combiner, size, lb, extent, blocks), computed by hand from the MPI type-map rules.
EXPECTED = {
    1: ("NAMED", 4, 0, 4, [(0, 4)]),
    2: ("NAMED", 8, 0, 8, [(0, 8)]),
    3: ("NAMED", 12, 0, 16, [(0, 12)]),
    10: ("DUP", 4, 0, 4, [(0, 4)]),
    11: ("CONTIGUOUS", 12, 0, 12, [(0, 12)]),
    12: ("VECTOR", 24, 0, 40, [(0, 8), (16, 8), (32, 8)]),
    13: ("HVECTOR", 16, 0, 18, [(0, 8), (10, 8)]),
    14: ("HVECTOR_INTEGER", 8, -8, 12, [(0, 4), (-8, 4)]),
    15: ("RESIZED", 4, -4, 16, [(0, 4)]),
    16: ("INDEXED", 12, 0, 28, [(20, 8), (0, 4)]),
    17: ("HINDEXED", 24, 3, 29, [(3, 8), (16, 16)]),
    18: ("INDEXED_BLOCK", 16, 4, 20, [(4, 8), (16, 8)]),
    19: ("STRUCT", 16, 0, 24, [(0, 8), (16, 8)]),
    20: ("STRUCT_INTEGER", 24, 100, 40, [(100, 8), (116, 8), (132, 8)]),
    21: ("SUBARRAY", 16, 0, 48, [(16, 8), (28, 8)]),
    22: ("SUBARRAY", 16, 0, 48, [(20, 8), (36, 8)]),
    23: ("DARRAY", 24, 0, 96, [(52, 4), (60, 4), (68, 4), (76, 4), (84, 4), (92, 4)]),
    25: ("HINDEXED_BLOCK", 16, 0, 16, [(0, 16)]),
}


@pytest.fixture
def datatypes(copy_project):
    proj = copy_project("ours")
    text = proj.read_text()
    start = text.index("<Rank name='0'>") + len("<Rank name='0'>")
    end = text.index("</Rank>", start)
    proj.write_text(text[:start] + TYPES + text[end:])
    return hdtrace.open(proj).datatypes[0]


@pytest.mark.parametrize("type_id", sorted(EXPECTED))
def test_combiner(datatypes, type_id):
    datatype = datatypes[type_id]
    combiner, size, lb, extent, blocks = EXPECTED[type_id]
    assert (datatype.combiner, datatype.size, datatype.lb, datatype.extent, datatype.blocks) == (
        combiner, size, lb, extent, blocks)
    assert datatype.ub == lb + extent
    assert datatype.note is None


def test_children_reference_the_decoded_types(datatypes):
    assert [child.id for child in datatypes[19].children] == [1, 2]
    assert datatypes[19].name == "pair"
    assert datatypes[12].children == [datatypes[1]]
    assert datatypes[21].params["ndims"] == 2 and datatypes[21].params["order"] == "MPI_ORDER_C"
    assert datatypes[16].details == [{"len": 2, "index": 5}, {"len": 1, "index": 0}]


def test_unknown_named_type_has_no_size_and_a_note(datatypes):
    assert datatypes[4].size is None and datatypes[4].blocks is None
    assert "MPI_FANCY" in datatypes[4].note and "not in the LP64 size table" in datatypes[4].note
    assert datatypes[24].size is None and "type 4" in datatypes[24].note


def test_reference_to_an_undefined_type_is_an_error(copy_project):
    proj = copy_project("ours")
    proj.write_text(proj.read_text().replace("oldType='1275069445'", "oldType='77'"))
    with pytest.raises(hdtrace.ReadError, match=r"app.proj:24: <VECTOR> of rank 0: references "
                                                r"type 77, which is not defined before it") as caught:
        hdtrace.open(proj).datatypes
    assert (caught.value.file, caught.value.line) == (str(proj), 24)


def test_our_project_vector(data_dir):
    vector = hdtrace.open(data_dir / "ours" / "app.proj").datatypes[0][16777216]
    assert (vector.size, vector.extent, vector.blocks) == (8, 16, [(0, 4), (12, 4)])


def test_original_struct(data_dir):
    struct = hdtrace.open(data_dir / "original" / "orig.proj").datatypes[0][2]
    assert (struct.size, struct.lb, struct.extent, struct.blocks) == (20, 0, 24, [(0, 4), (8, 16)])


BIG_TYPES = """
  <NAMED id='1' name='MPI_INT'/>
  <NAMED id='2' name='MPI_BYTE'/>
  <CONTIGUOUS id='30' name='' count='1073741824' oldType='2'/>
  <VECTOR id='31' name='' count='2000000' blocklength='1' stride='2' oldType='1'/>
  <SUBARRAY id='32' name='' count='2' ndims='2' order='MPI_ORDER_C' oldType='1'>
    <Dimension size='1000' subsize='500' start='250'/>
    <Dimension size='1000' subsize='500' start='100'/>
  </SUBARRAY>
  <CONTIGUOUS id='33' name='' count='3' oldType='32'/>
  <SUBARRAY id='34' name='' count='3' ndims='3' order='MPI_ORDER_FORTRAN' oldType='1'>
    <Dimension size='4000' subsize='10' start='0'/>
    <Dimension size='2000' subsize='1000' start='0'/>
    <Dimension size='2000' subsize='1001' start='1'/>
  </SUBARRAY>
"""


def test_large_types_stay_cheap(copy_project):
    proj = copy_project("ours")
    text = proj.read_text()
    start = text.index("<Rank name='0'>") + len("<Rank name='0'>")
    end = text.index("</Rank>", start)
    proj.write_text(text[:start] + BIG_TYPES + text[end:])
    types = hdtrace.open(proj).datatypes[0]
    # A gigabyte of bytes is one block.
    assert (types[30].size, types[30].extent, types[30].blocks) == (2**30, 2**30, [(0, 2**30)])
    # Two million separate ints are more than are flattened; the rest is exact.
    vector = types[31]
    assert (vector.size, vector.lb, vector.extent) == (8_000_000, 0, ((2_000_000 - 1) * 2 + 1) * 4)
    assert vector.blocks is None and "2000000 blocks" in vector.note
    # 500 rows of 500 ints inside a 1000 x 1000 array.
    sub = types[32]
    assert (sub.size, sub.lb, sub.extent) == (500 * 500 * 4, 0, 1000 * 1000 * 4)
    assert len(sub.blocks) == 500
    assert sub.blocks[0] == ((250 * 1000 + 100) * 4, 2000)
    assert sub.blocks[-1] == ((749 * 1000 + 100) * 4, 2000)
    assert types[33].size == 3 * sub.size and len(types[33].blocks) == 1500
    assert types[33].blocks[500][0] == sub.extent + sub.blocks[0][0]
    # 1001000 rows of a 3-d array: not listed, but exact.
    cube = types[34]
    assert (cube.size, cube.lb, cube.extent) == (10 * 1000 * 1001 * 4, 0, 4000 * 2000 * 2000 * 4)
    assert cube.blocks is None and "1001000 blocks" in cube.note


# Predefined types the PIOsim tools do not know, written as byte
# layouts of MPI_BYTE (docs/format/project.md, "Predefined types").
LAYOUTS = """
  <NAMED id='1' name='MPI_BYTE'/>
  <CONTIGUOUS id='40' name='MPI_UNSIGNED' count='4' oldType='1'/>
  <CONTIGUOUS id='73' name='' count='12' oldType='1'/>
  <RESIZED id='49' name='MPI_DOUBLE_INT' lowerBound='0' extend='16' oldType='73'/>
  <STRUCT id='53' name='MPI_SHORT_INT' count='2'>
    <Type id='1' displacement='0' blocklen='2'/>
    <Type id='1' displacement='4' blocklen='4'/>
  </STRUCT>
  <CONTIGUOUS id='16777216' name='' count='2' oldType='53'/>
"""


def test_byte_layouts_read_back_as_the_predefined_type(copy_project):
    proj = copy_project("ours")
    text = proj.read_text()
    start = text.index("<Rank name='0'>") + len("<Rank name='0'>")
    proj.write_text(text[:start] + LAYOUTS + text[text.index("</Rank>", start):])
    types = hdtrace.open(proj).datatypes[0]
    read = {tid: (t.combiner, t.name, t.layout, t.size, t.extent, t.blocks)
            for tid, t in types.items()}
    assert read[40] == ("NAMED", "MPI_UNSIGNED", "CONTIGUOUS", 4, 4, [(0, 4)])
    assert read[49] == ("NAMED", "MPI_DOUBLE_INT", "RESIZED", 12, 16, [(0, 12)])
    assert read[53] == ("NAMED", "MPI_SHORT_INT", "STRUCT", 6, 8, [(0, 2), (4, 4)])
    # The inner element stays a derived type; a type built on a layout is unchanged.
    assert read[73][:3] == ("CONTIGUOUS", "", None)
    assert read[16777216] == ("CONTIGUOUS", "", None, 12, 16, [(0, 2), (4, 6), (12, 4)])
