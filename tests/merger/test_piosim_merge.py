"""What project-merger writes for the PIOsim tools, from hand-written
.info files of a 4-rank run: unique communicator names with unchanged member
lists; predefined types as the tools' names or byte layouts; and the refusal
(without --force) of a project the tools would not load."""
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import pytest

MPI_LINE = ("Mpi library='Open MPI v4.1.4' order_c=0 order_fortran=1 distribute_block=0 "
            "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n")
EMPTY_TRACE = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n</Program>\n"


@pytest.fixture(scope="module")
def merger(build_dir) -> pathlib.Path:
    path = build_dir / "merger" / "project-merger"
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build the merger (HDTRACE_BUILD_MERGER=ON)")
    return path


def write_rank(directory, rank, lines):
    base = directory / f"app_node0_{rank}_0"
    base.with_suffix(".info").write_text(MPI_LINE + "".join(line + "\n" for line in lines))
    base.with_suffix(".trc").write_text(EMPTY_TRACE)
    return base.with_suffix(".info")


def merge(merger, directory, *options):
    return subprocess.run([str(merger), *options, str(directory / "app")], capture_output=True,
                          text=True, timeout=60)


# Per rank: WORLD, SELF, two dups of WORLD both named 'dup', a split into
# halves named 'half' on both halves ({0,2} and {1,3}), a split named '' and
# a communicator the program itself named 'SELF 1' (it may not take rank 1's
# name from it).
def comm_lines(rank):
    half = [0, 2] if rank % 2 == 0 else [1, 3]
    return [
        "Comm map='0..3->0..3;' id=0 name='WORLD'",
        f"Comm map='{rank}->0;' id=1 name='SELF'",
        "Comm map='0..3->0..3;' id=2 name='dup'",
        "Comm map='0..3->0..3;' id=3 name='dup'",
        f"Comm map='{half[0]}->0;{half[1]}->1;' id=4 name='half'",
        f"Comm map='{half[0]}->0;{half[1]}->1;' id=5 name=''",
        f"Comm map='{rank}->0;' id=6 name='SELF 1'",
    ]


def test_communicator_names_are_unique_and_members_unchanged(merger, tmp_path):
    for rank in range(4):
        write_rank(tmp_path, rank, comm_lines(rank))
    result = merge(merger, tmp_path)
    assert result.returncode == 0, result.stderr
    root = ET.parse(tmp_path / "app.proj").getroot()
    communicators = [(c.attrib["name"], [(int(r.attrib["global"]), int(r.attrib["local"]),
                                           int(r.attrib["cid"])) for r in c.findall("Rank")])
                     for c in root.find("CommunicatorList")]
    names = [name for name, _ in communicators]
    non_empty = [name for name in names if name]
    assert len(non_empty) == len(set(non_empty)), names
    assert names[0] == "WORLD"
    members = dict((name, rows) for name, rows in communicators if name)
    assert members["WORLD"] == [(r, r, 0) for r in range(4)]
    for rank in range(4):
        assert members[f"SELF {rank}"] == [(rank, 0, 1)], names
    # Both dups of WORLD, in list order; both halves.
    assert members["dup"] == [(r, r, 2) for r in range(4)]
    assert members["dup #2"] == [(r, r, 3) for r in range(4)]
    assert sorted([members["half"], members["half #2"]]) == [[(0, 0, 4), (2, 1, 4)],
                                                              [(1, 0, 4), (3, 1, 4)]]
    # The program's own 'SELF 1' communicators yield the name to rank 1's
    # MPI_COMM_SELF and are numbered in list order (rank order here).
    for rank in range(4):
        assert members[f"SELF 1 #{rank + 2}"] == [(rank, 0, 6)], names
    empty = [rows for name, rows in communicators if not name]
    assert sorted(empty) == [[(0, 0, 5), (2, 1, 5)], [(1, 0, 5), (3, 1, 5)]]
    assert len(communicators) == 1 + 4 + 2 + 2 + 2 + 4


def type_line(tid, name, size=None, extent=None, blocks=None):
    line = f"Type id='{tid}' combiner='MPI_COMBINER_NAMED' name='{name}'"
    if size is not None:
        line += f" size='{size}' extent='{extent}'"
    if blocks:
        line += " blocks='" + "".join(f"{o}:{n};" for o, n in blocks) + "'"
    return line


def test_predefined_types_become_names_or_byte_layouts(merger, tmp_path):
    lines = ["Comm map='0->0;' id=0 name='WORLD'",
             type_line(1, "MPI_BYTE", 1, 1), type_line(39, "MPI_INT", 4, 4),
             type_line(41, "MPI_LONG", 8, 8), type_line(40, "MPI_UNSIGNED", 4, 4),
             type_line(49, "MPI_DOUBLE_INT", 12, 16),
             type_line(53, "MPI_SHORT_INT", 6, 8, [(0, 2), (4, 4)]),
             "Type id='16777216' combiner='MPI_COMBINER_CONTIGUOUS' name='' integers='3;' "
             "addresses='' types='53;'"]
    write_rank(tmp_path, 0, lines)
    result = merge(merger, tmp_path)
    assert result.returncode == 0, result.stderr
    rank = ET.parse(tmp_path / "app.proj").getroot().find("Datatypes").find("Rank")
    written = [(e.tag, dict(e.attrib), [dict(c.attrib) for c in e]) for e in rank]
    by_id = {attrib["id"]: (tag, attrib, children) for tag, attrib, children in written}
    assert by_id["1"][0] == "NAMED" and by_id["39"][0] == "NAMED"
    # MPI_LONG is 8 bytes here, not the tools' 4.
    assert by_id["41"][:2] == ("CONTIGUOUS", {"id": "41", "name": "MPI_LONG", "count": "8",
                                              "oldType": "1"})
    assert by_id["40"][:2] == ("CONTIGUOUS", {"id": "40", "name": "MPI_UNSIGNED", "count": "4",
                                              "oldType": "1"})
    # 12 bytes of data in an extent of 16: a STRUCT of the data, then an UB
    # marker at the extent, which sets the extent for the tools.
    tag, attrib, children = by_id["49"]
    assert (tag, attrib["name"], attrib["count"]) == ("STRUCT", "MPI_DOUBLE_INT", "2")
    inner_id = children[0]["id"]
    assert children == [{"id": inner_id, "displacement": "0", "blocklen": "1"},
                        {"id": children[1]["id"], "displacement": "16", "blocklen": "1"}]
    inner = by_id[inner_id]
    assert inner[:2] == ("CONTIGUOUS", {"id": inner_id, "name": "", "count": "12",
                                        "oldType": "1", "partOf": "49"})
    marker = by_id[children[1]["id"]]
    assert marker[:2] == ("NAMED", {"id": children[1]["id"], "name": "MPI_UB", "partOf": "*"})
    assert int(inner_id) > 16777216  # a new id, above every id of the rank
    assert by_id["53"] == ("STRUCT", {"id": "53", "name": "MPI_SHORT_INT", "count": "2"},
                           [{"id": "1", "displacement": "0", "blocklen": "2"},
                            {"id": "1", "displacement": "4", "blocklen": "4"}])
    # Each after what it references: BYTE first, the derived type last.
    order = [attrib["id"] for _, attrib, _ in written]
    assert order.index("1") < order.index("53") < order.index("16777216")
    assert order.index(inner_id) < order.index("49")
    assert order.index(children[1]["id"]) < order.index("49")


def test_old_info_without_sizes_is_refused_unless_forced(merger, tmp_path):
    info = write_rank(tmp_path, 0, ["Comm map='0->0;' id=0 name='WORLD'",
                                    type_line(1, "MPI_BYTE"), type_line(40, "MPI_UNSIGNED")])
    result = merge(merger, tmp_path)
    assert result.returncode == 1, result.stdout
    assert not (tmp_path / "app.proj").exists()
    assert f"{info}:4: rank 0: <NAMED id='40'>: the PIOsim tools know no predefined type " \
           "named 'MPI_UNSIGNED'" in result.stderr, result.stderr
    assert "trace the program again" in result.stderr and "--force" in result.stderr
    forced = merge(merger, tmp_path, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "warning: " + str(info) + ":4:" in forced.stderr and "written anyway" in forced.stderr
    rank = ET.parse(tmp_path / "app.proj").getroot().find("Datatypes").find("Rank")
    assert [(e.tag, e.attrib["name"]) for e in rank] == [("NAMED", "MPI_BYTE"),
                                                         ("NAMED", "MPI_UNSIGNED")]
