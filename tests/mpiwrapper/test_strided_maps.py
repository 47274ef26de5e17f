"""The row and column communicators of a grid (programs/grid.c on 6 ranks):
the wrapper writes each column as one strided map entry, and the merged
project is the one merged from the same .info files written member by member."""
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import tracecheck
from tool_trees import tools_tree_or_fail

RANKS = 6
WIDTH = 2
STRIDED_RUN = re.compile(r"([0-9]+)\.\.([0-9]+):(-?[0-9]+)->([0-9]+)\.\.([0-9]+);")


def entry_by_entry(info_text: str) -> str:
    """The .info with every strided run written as one entry per member."""
    def expand(match):
        first, last, step, local = (int(match.group(k)) for k in (1, 2, 3, 4))
        count = (last - first) // step + 1
        return "".join(f"{first + k * step}->{local + k};" for k in range(count))
    return STRIDED_RUN.sub(expand, info_text)


def merge(tools: pathlib.Path, prefix: pathlib.Path) -> bytes:
    merged = subprocess.run([str(tools / "merger" / "project-merger"), str(prefix)],
                            capture_output=True, text=True, timeout=120)
    assert merged.returncode == 0, merged.stderr
    return prefix.with_suffix(".proj").read_bytes()


def communicators(project: bytes) -> list:
    root = ET.fromstring(project)
    return [(element.attrib["name"],
             [(rank.attrib["global"], rank.attrib["local"], rank.attrib.get("cid"))
              for rank in element.findall("Rank")])
            for element in root.find("CommunicatorList")]


def test_columns_are_strided_and_merge_as_entries(runner, build_dir, tmp_path):
    tools = tools_tree_or_fail(build_dir)
    run = runner.run("grid_traced", RANKS)
    checkers = run.check()  # every map read back and in its compact form
    program = tracecheck.sanitize(run.program)
    for rank, checker in enumerate(checkers):
        maps = {(entry["map_text"], entry["remote"] is not None)
                for entry in checker.info.comms.values()}
        column, other = rank % WIDTH, (rank + 1) % WIDTH
        last = column + WIDTH * (RANKS // WIDTH - 1)
        row = rank // WIDTH * WIDTH
        assert (f"{column}..{last}:{WIDTH}->0..2;", False) in maps, (checker.info.path, maps)
        assert (f"{last}..{column}:-{WIDTH}->0..2;", False) in maps, (checker.info.path, maps)
        assert (f"{row}..{row + 1}->0..1;", False) in maps, (checker.info.path, maps)
        assert (f"{column}..{last}:{WIDTH}->0..2;", True) in maps, (checker.info.path, maps)
        info_text = checker.info.path.read_text()
        assert f"remote='{other}..{other + WIDTH * (RANKS // WIDTH - 1)}:{WIDTH}->0..2;'" in \
            info_text, info_text

    # The same run with each strided run spelt out, as a wrapper without the
    # strided form wrote it.
    spelt = tmp_path / "spelt"
    spelt.mkdir()
    rewritten = 0
    for path in run.trace_dir.glob(f"{program}_*"):
        if path.suffix == ".info":
            text = path.read_text()
            (spelt / path.name).write_text(entry_by_entry(text))
            rewritten += entry_by_entry(text) != text
        elif path.suffix == ".trc":
            shutil.copy(path, spelt / path.name)
    assert rewritten == RANKS
    assert ":" not in "".join(re.findall(r"map='[^']*'|remote='[^']*'",
                                         "".join(p.read_text() for p in spelt.glob("*.info"))))

    strided_project = merge(tools, run.trace_dir / program)
    spelt_project = merge(tools, spelt / program)
    merged = communicators(strided_project)
    assert merged == communicators(spelt_project)
    assert strided_project == spelt_project
    # Each column, in both orders, as the program made them.
    locals_by_members = {}
    for _, ranks in merged:
        key = tuple(global_ for global_, _, _ in ranks)
        locals_by_members.setdefault(key, set()).add(tuple(local for _, local, _ in ranks))
    for column in range(WIDTH):
        worlds = tuple(str(column + WIDTH * k) for k in range(RANKS // WIDTH))
        assert locals_by_members[worlds] == {("0", "1", "2"), ("2", "1", "0")}, merged


def test_grid_behaves_as_untraced(runner):
    plain = runner.run("grid_plain", RANKS)
    traced = runner.run("grid_traced", RANKS)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.returncode == 0, traced.result.stderr
    assert tracecheck.per_rank_lines(traced.result.stdout) == \
        tracecheck.per_rank_lines(plain.result.stdout)
    assert len(tracecheck.per_rank_lines(plain.result.stdout)) == RANKS * 12
    assert traced.result.stderr == plain.result.stderr == ""
