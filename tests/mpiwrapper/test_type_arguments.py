"""A type made by a traced constructor is described from the
constructor's arguments, without MPI_Type_get_contents; its .info line must
be the one MPI_Type_get_contents gives. programs/typeargs.c makes every
case twice, through the traced MPI_ name and through PMPI_ (which the
wrapper decodes through MPI_Type_get_contents), names the twin "twin"
(unseen by the wrapper, which gives identical definitions one id), and
commits both."""
import tracecheck

DUP_PREFIX = "Dup "  # Open MPI names the duplicates MPI_Type_get_contents returns so


def describe(info, tid, top=True):
    """The type's line as a tree: combiner, name, integers, addresses and its
    children described the same way. A child's name may carry Open MPI's
    "Dup " prefix on the twin's side (get_contents returned a duplicate of
    the program's input), so children are compared without it."""
    entry = info.types[tid]
    name = entry["name"]
    if not top and name.startswith(DUP_PREFIX):
        name = name[len(DUP_PREFIX):]
    children = tuple(describe(info, child, top=False) for child in entry.get("types", []))
    return (entry["combiner"], name, tuple(entry.get("integers", [])),
            tuple(entry.get("addresses", [])), children)


def test_constructor_arguments_give_the_get_contents_line(runner):
    run = runner.run("typeargs_traced", 1)
    run.assert_ok()
    lines = run.result.stdout.splitlines()
    assert lines and lines[0].startswith("pairs="), run.result.stdout
    count = int(lines[0].split("=")[1])
    names = lines[1:1 + count]
    assert len(names) == count >= 18, run.result.stdout
    base = tracecheck.trace_base(run.trace_dir, "typeargs_traced", 0)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    info = tracecheck.parse_info(base.with_suffix(".info"))
    if "MPICH" in info.header["library"]:
        assert any(name.endswith("_c") for name in names), \
            "MPICH 4 has the large-count constructors: they must be among the cases"
    commits = [int(e.attrib["tid"]) for e in trace.elements if e.tag == "Type_commit"]
    assert len(commits) == 2 * count, f"{len(commits)} commits for {count} pairs"
    for i, name in enumerate(names):
        made, twin = commits[2 * i], commits[2 * i + 1]
        assert made != twin, f"{name}: the type and its twin share id {made}"
        twin_name = "named twin" if name == "Type_vector named" else "twin"
        assert info.types[twin]["name"] == twin_name, f"{name}: {info.types[twin]}"
        ours, theirs = describe(info, made), describe(info, twin)
        # Everything but the top-level name, which is the twin's own.
        assert ours[:1] + ours[2:] == theirs[:1] + theirs[2:], (
            f"{name}: from the constructor's arguments (id {made}) "
            f"{ours}, through MPI_Type_get_contents (id {twin}) {theirs}")
        assert ours[0] != "MPI_COMBINER_NAMED", f"{name}: not described as a derived type"
    named = names.index("Type_vector named")
    assert info.types[commits[2 * named]]["name"] == "named 'type' <&>"
