"""The one definition of the dialect (format/dialect.toml) and what is made
from it: the definition checks itself, the wrapper generator refuses entries
that contradict it, the committed reference tables and the built Python
call table are what the generator writes now, and no source outside the
definition and its generated outputs spells a call's tag."""
import importlib.util
import re
import subprocess
import sys
import tomllib

import pytest

from buildtree import REPO_ROOT, build_dir

GENERATOR = REPO_ROOT / "scripts" / "generate-dialect.py"
DEFINITION = REPO_ROOT / "format" / "dialect.toml"
REFERENCE = REPO_ROOT / "docs" / "format" / "calls.md"

sys.path.insert(0, str(REPO_ROOT / "format"))
import dialect  # noqa: E402

# Sources that may spell call tags in quotes, and why:
# - the definition and the generators that read it;
# - the configurations the layers' wrappers are generated from (each
#   layer's wrappers key: wrapper_conf.py, posix_conf.py, hdf5/hdf5_conf.py):
#   their entries are checked against the definition at every build
#   (generate-wrappers.py, generate-library-wrappers.py), so a tag there
#   cannot drift;
# - tests (they assert on tags), benchmarks and examples (they write
#   traces of known calls to measure or show them).
ALLOWED = ("format/", "scripts/generate-dialect.py", "scripts/generate-library-wrappers.py",
           "tests/", "bench/", "examples/") + tuple(
               sorted({layer.wrappers for layer in dialect.load().layers.values()}))
SOURCE_SUFFIXES = (".py", ".cpp", ".hpp", ".h", ".c", ".in")


def run_generator(what, output, definition=DEFINITION):
    return subprocess.run([sys.executable, str(GENERATOR), what, str(output), str(definition)],
                          capture_output=True, text=True)


def test_the_reference_tables_are_what_the_definition_gives(tmp_path):
    fresh = tmp_path / "calls.md"
    result = run_generator("docs", fresh)
    assert result.returncode == 0, result.stderr
    assert REFERENCE.read_text() == fresh.read_text(), (
        "docs/format/calls.md differs from format/dialect.toml; refresh it with: "
        "scripts/generate-dialect.py docs docs/format/calls.md")


def test_the_built_python_call_table_is_what_the_definition_gives(tmp_path):
    built = build_dir() / "python" / "hdtrace" / "_dialect.py"
    assert built.exists(), f"{built} is missing: build with HDTRACE_BUILD_PYTHON=ON"
    fresh = tmp_path / "_dialect.py"
    assert run_generator("python", fresh).returncode == 0
    assert built.read_text() == fresh.read_text(), "the build tree's _dialect.py is stale"
    spec = importlib.util.spec_from_file_location("generated_dialect", built)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    definition = dialect.load()
    assert list(module.FAMILY_OF) == list(definition.calls)
    assert module.ATTRIBUTES["Isend"] == ("size", "count", "tid", "toRank", "toTag", "cid", "rid")
    assert module.SENDS == {"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend",
                            "Irsend"}
    assert module.RECEIVES == {"Recv", "Irecv", "Mrecv", "Imrecv"}
    assert module.ROOTED == {"Bcast", "Reduce", "Gather", "Gatherv", "Scatter", "Scatterv",
                             "Ibcast", "Ireduce", "Igather", "Igatherv", "Iscatter", "Iscatterv"}
    assert module.COLLECTIVE_OPERATION["Ineighbor_alltoallv"] == "Neighbor_alltoallv"
    assert "Barrier" not in module.MOVES_DATA and "File_read_all_begin" in module.MOVES_DATA
    assert module.FILE_READS >= {"File_read_shared", "File_iread_at", "File_read_ordered_begin"}


def test_every_generator_output_is_written(tmp_path):
    for what in ("reader", "clocks", "python", "docs", "filter"):
        result = run_generator(what, tmp_path / what)
        assert result.returncode == 0, (what, result.stderr)
        assert (tmp_path / what).stat().st_size > 0


def generate_from_changed(tmp_path, change, what, output_name):
    """The generator's run on the definition with change (old, new, count)
    made, and its output's path."""
    old, new, count = change
    text = DEFINITION.read_text()
    assert old in text
    broken = tmp_path / "dialect.toml"
    broken.write_text(text.replace(old, new, count))
    output = tmp_path / output_name
    return run_generator(what, output, broken), output


@pytest.mark.parametrize("change, message", [
    (('sends_to = "toRank"', 'sends_to = "toTag"', 1),
     'sends_to = "toTag" names no attribute of kind rank'),
    (('"toRank:rank", "toTag:tag"', '"toRank:rank", "toRank:tag"', 1),
     'attribute toRank appears twice'),
    (('family = "wait"', 'family = "waits"', 1), 'family "waits" is not in [families]'),
    (('"cid:cid"', '"cid:communicator"', 1), 'attribute "cid:communicator" is not name:kind'),
    (('\nio = "read"', '\nio = "reads"', 1), 'io = "reads" is none of'),
])
def test_a_contradictory_definition_is_refused_naming_the_call(tmp_path, change, message):
    result, output = generate_from_changed(tmp_path, change, "python", "out.py")
    assert result.returncode != 0
    assert message in result.stderr
    assert "[calls." in result.stderr
    assert not output.exists()


@pytest.mark.parametrize("change, message", [
    (('any_role = ["probe", "probes_message"]', 'any_role = ["probes"]', 1),
     '[groups.p2p-probe]: "probes" is no role key of a call'),
    (('families = ["one-sided"]', 'families = ["one sided"]', 1),
     '[groups.one-sided]: family "one sided" is not in [families]'),
    (('tags = ["Test*"]', 'tags = ["Tset*"]', 1), '[groups.test]: holds no call'),
    (('[groups.datatypes]\nabout', '[groups.datatypes]\nabuot', 1),
     "[groups.datatypes]: unknown key(s) ['abuot']"),
    (('[groups.ordinary]\nabout', '[groups.ordinary]\nlayer = true\nabout', 1),
     "[groups.ordinary]: unknown key(s) ['layer']"),
])
def test_a_group_that_contradicts_the_calls_is_refused_naming_it(tmp_path, change, message):
    result, output = generate_from_changed(tmp_path, change, "filter", "out.hpp")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not output.exists()


@pytest.mark.parametrize("change, message", [
    (('asked = ["asked"]\ndone = "size"', 'asked = ["asked"]\ndone = "sizes"', 1),
     '[layers.posix]: done names "sizes", which no call of the layer has'),
    (('error = "error"', 'error = "errors"', 1),
     '[layers.hdf5]: error names "errors", which no call of the layer has'),
    (('asked = ["asked"]\ndone = "size"', 'asked = ["size"]\ndone = "asked"', 1),
     '[layers.posix]: attribute "size" fills the column asked'),
    (('layer = "stdio"', 'layer = "stdios"', 1), 'layer = "stdios" is none of the layers'),
    (('layer = "stdio"', 'layer = "mpiio"', 1), 'layer = "mpiio" is none of the layers'),
    (('part_of = "mpi"', 'part_of = "posix"', 1), '[layers.mpiio]: holds no call'),
    (('order = ["hdf5", "mpi", "mpiio", "posix", "stdio"]', 'order = ["hdf5", "mpi", "posix", "stdio"]', 1),
     '[layers] order must list every layer once'),
    (('colours = ["#4e79a7", ', 'colours = [', 1),
     '[families] colours must give each family of order a colour'),
    (('c_library = true\nwrappers', 'c_library = true\nown_trace = "yes"\nwrappers', 1),
     '[layers.posix]: own_trace is true or false'),
    (('wrappers = "mpiwrapper/posix_conf.py"', 'wrappers = "mpiwrapper/posix"', 1),
     '[layers.posix]: wrappers names a configuration, a .py file'),
    (('families = ["file I/O"]', 'families = ["file I/O"]\nwrappers = "x.py"', 1),
     '[layers.mpiio]: a part_of layer takes its meanings, trace and wrappers from mpi'),
    (('received_from = "fromRank"', 'received_from = "targetRank"', 1),
     '[layers.mpi]: received_from is not one of peer'),
])
def test_a_layer_that_contradicts_the_calls_is_refused_naming_it(tmp_path, change, message):
    result, output = generate_from_changed(tmp_path, change, "reader", "out.hpp")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not output.exists()


def test_every_layer_is_a_group_of_its_calls():
    definition = dialect.load()
    for key, layer in definition.layers.items():
        group = definition.groups[key]
        assert group.is_layer and group.tags == [call.tag for call in layer.calls]
    assert definition.groups["stdio"].tags == ["fopen", "fdopen", "fclose", "fread", "fwrite",
                                               "fseek", "fflush"]
    assert all(definition.layer_of(definition.calls[tag]).c_library
               for tag in definition.groups["posix"].tags + definition.groups["stdio"].tags)
    assert not any(group.is_layer for name, group in definition.groups.items()
                   if name not in definition.layers)


def test_the_wrapper_generator_refuses_an_entry_the_definition_contradicts(tmp_path):
    conf = (REPO_ROOT / "mpiwrapper" / "wrapper_conf.py").read_text()
    swapped = conf.replace("('toTag', 'tag', 'tag'), ('cid', 'comm', 'comm')]",
                           "('cid', 'comm', 'comm'), ('toTag', 'tag', 'tag')]", 1)
    assert swapped != conf
    (tmp_path / "wrapper_conf.py").write_text(swapped)
    output = tmp_path / "MpiWrappers.cpp"
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "generate-wrappers.py"), "--dialect",
         str(DEFINITION),
         str(REPO_ROOT / "mpiwrapper" / "functions.h"), str(tmp_path / "wrapper_conf.py"),
         str(output)], capture_output=True, text=True)
    assert result.returncode != 0
    assert ("MPI_Send (<Send>): writes the attributes ['size', 'count', 'tid', 'toRank', "
            "'cid', 'toTag'], the definition says ['size', 'count', 'tid', 'toRank', 'toTag', "
            "'cid']") in result.stderr
    assert not output.exists()


def tracked_sources():
    listed = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return [path for path in listed
            if path.endswith(SOURCE_SUFFIXES) and not path.startswith(ALLOWED)]


def test_no_source_outside_the_definition_spells_a_call_tag():
    # "read" and "write" are also the values of the io role (a file access
    # reads or writes), which the package and the report spell as such; the
    # package's own function open() is in its __all__.
    tags = sorted((tag for tag in dialect.load().calls if tag not in dialect.CHOICES["io"]),
                  key=len, reverse=True)
    not_tags = {("python/hdtrace/__init__.py", '"open"')}
    quoted = re.compile(r"""(["'])(%s)\1""" % "|".join(map(re.escape, tags)))
    spelled = []
    for path in tracked_sources():
        for number, line in enumerate((REPO_ROOT / path).read_text(errors="replace")
                                      .splitlines(), 1):
            for match in quoted.finditer(line):
                if (path, match.group(0)) not in not_tags:
                    spelled.append(f"{path}:{number}: {match.group(0)}")
    assert not spelled, ("call tags spelled outside format/dialect.toml (take them from the "
                         "generated call tables instead):\n" + "\n".join(spelled))


def meaning_attribute_names():
    """Every attribute name to which the dialect gives a meaning: those the
    layers name, and those a call's role keys name."""
    definition = dialect.load()
    names = set()
    for layer in definition.layers.values():
        for attributes in layer.meanings.values():
            names.update(attributes)
    for call in definition.calls.values():
        names.update(call.roles[key] for key in dialect.ATTRIBUTE_ROLES if key in call.roles)
    return sorted(names, key=len, reverse=True)


# Where a source takes a meaning from an attribute's name: C++ comparing a
# name with a literal or looking one up; Python getting it from a mapping of
# attributes, or asking whether one is there.
_NAME = r"""["'](%s)["']"""
_CPP_LOOKUPS = (r"equals\(\s*\w+\s*,\s*" + _NAME, r"==\s*" + _NAME, _NAME + r"\s*==",
                r"\.find\(\s*" + _NAME, r"\.attribute\(\s*" + _NAME + r"\s*\)")
_PYTHON_LOOKUPS = (r"(?:attrs|attributes|child|source)(?:\(\))?(?:\.get\(|\[)\s*" + _NAME,
                   _NAME + r"\s+(?:not\s+)?in\s+(?:\w+\.)?(?:attrs|attributes)\b")
# Sources that may look attributes up by name: the definition and its
# generators, the wrapper's configuration (checked against the definition
# at every build), and the writer's sources, which write the names.
MEANING_ALLOWED = ALLOWED + ("mpiwrapper/", "hdtrace/src/", "hdtrace/include/")
# Lookups of names that are no call's attributes: the .info's File lines
# and the project's own elements (<Communicator name>, <Rank cid>, a rank's
# <Datatypes> and its types).
NOT_CALL_ATTRIBUTES = {
    ("merger/src/InfoLineParser.cpp",
     'out.size = attributes.find("size") ? attributes.integer("size") : -1;'),
    ("python/hdtrace/check.py", 'model.comm_names.append((attributes.get("name", ""), line))'),
    ("python/hdtrace/check.py",
     'world, cid = _integer(attributes.get("global")), _integer(attributes.get("cid"))'),
    ("python/hdtrace/check.py", 'state["rank"] = _integer(attributes.get("name"))'),
    ("python/hdtrace/check.py", 'type_name = attributes.get("name", "")'),
}


def test_no_source_outside_the_definition_decides_what_an_attribute_means():
    alternatives = "|".join(map(re.escape, meaning_attribute_names()))
    cpp = [re.compile(pattern % alternatives) for pattern in _CPP_LOOKUPS]
    python = [re.compile(pattern % alternatives) for pattern in _PYTHON_LOOKUPS]
    restated = []
    for path in tracked_sources():
        if path.startswith(MEANING_ALLOWED):
            continue
        patterns = python if path.endswith(".py") else cpp
        for number, line in enumerate((REPO_ROOT / path).read_text(errors="replace")
                                      .splitlines(), 1):
            if any(pattern.search(line) for pattern in patterns) and \
                    (path, line.strip()) not in NOT_CALL_ATTRIBUTES:
                restated.append(f"{path}:{number}: {line.strip()}")
    assert not restated, (
        "attribute meanings restated outside format/dialect.toml (take them from the "
        "generated tables: the readers' callAttributeOf, Python's calls.attribute_value):\n"
        + "\n".join(restated))


def table_entries(generated):
    """The kStaticShapeTable lines of a generated CompactShapes.inc, and the
    shape counts of its earlier tables."""
    rows = generated.split("kStaticShapeTable[] = {\n", 1)[1].split("};", 1)[0].splitlines()
    earlier = re.search(r"kEarlierTableShapes\[\] = \{([0-9, ]*)\}", generated).group(1)
    return rows, [int(count) for count in earlier.split(",")]


def test_each_compact_shape_table_begins_with_the_tables_before_it(tmp_path):
    """A call added later (compact_table) gets its shapes after every earlier
    table's: the table of the definition without those calls is the
    beginning of this one, and its count is among the earlier tables', so
    that a trace written with it still decodes (CompactShapeTableTest)."""
    assert run_generator("compact", tmp_path / "now.inc").returncode == 0
    rows, earlier = table_entries((tmp_path / "now.inc").read_text())
    text = DEFINITION.read_text()
    later = [(tag, entry["compact_table"]) for tag, entry in tomllib.loads(text)["calls"].items()
             if entry.get("compact_table", 1) > 1]
    assert later, "no call of a later table: this test has nothing to check"
    for table in sorted({number for _, number in later}):
        before = text
        for tag, number in later:
            if number >= table:
                block = re.search(r"\n\[calls\.%s\]\n(?:[^\[\n][^\n]*\n|\n)*" % tag, before)
                before = before.replace(block.group(0), "\n", 1)
        (tmp_path / "before.toml").write_text(before)
        result = run_generator("compact", tmp_path / "before.inc", tmp_path / "before.toml")
        assert result.returncode == 0, result.stderr
        rows_before, earlier_before = table_entries((tmp_path / "before.inc").read_text())
        assert rows[:len(rows_before)] == rows_before, table
        assert len(rows_before) in earlier and earlier[:len(earlier_before)] == earlier_before
    # A table number must be a number of 1 or more.
    result, output = generate_from_changed(tmp_path, ("compact_table = 2", "compact_table = 0",
                                                      1), "compact", "broken.inc")
    assert result.returncode != 0 and "compact_table is a table number, 1 or more" in \
        result.stderr and not output.exists()


def test_the_filter_guide_names_every_call_of_the_groups_it_lists_in_full():
    """docs/user/filters.md's table of groups lists the calls of the layers'
    groups (and of test and lifecycle) by name: each such list is the
    group's as the definition gives it, so that a call added there shows in
    the guide, or this fails."""
    definition = dialect.load()
    text = (REPO_ROOT / "docs" / "user" / "filters.md").read_text()
    rows = dict(re.findall(r"^\| `([\w-]+)` \| (.*) \|$", text, re.M))
    for group in ("hdf5", "posix", "stdio", "test", "lifecycle"):
        named = [word for word in re.findall(r"`([^`]+)`", rows[group])
                 if word in definition.calls]
        assert sorted(named) == sorted(definition.groups[group].tags), group
