"""What a filter would keep of a traced run, measured: each trace rewritten
as a run with the filter would have written it (native.filtered_call_costs:
the calls it leaves out taken away, their nested calls moved out), and its
costs taken in both forms like the run's own."""

from .. import native
from ..calls import POSIX_CALLS
from ..io_calls import info_file_names
from .costs import CostRows, RunCosts, trace_files, trace_row

def _c_library_tags():
    """The C library's calls, which file rules choose."""
    return set(POSIX_CALLS)


def file_path_for_rules(name):
    """The path file rules are matched with: the wrapper matches the absolute
    path, but a .info names a file as it was first named; a relative name is
    taken as if it were directly under / (the run's working directory is not
    recorded), so that */NAME matches it."""
    return name if name.startswith("/") else "/" + name


def kept_costs(project, costs, rules, progress=None):
    """The RunCosts of the run as the filter would have written it. A rank the
    filter leaves out keeps a trace without calls (and a layer trace beside
    it, when it had one, without calls too)."""
    import pandas as pd  # slow to import: only a score needs it
    c_library = _c_library_tags()
    tags_by_trace = costs.calls.groupby(["rank", "thread"])["tag"].unique()
    files = trace_files(project)
    rows, traces = CostRows(), []
    relative = set()
    info_bytes = dict(zip(costs.traces["path"], costs.traces["info_bytes"]))
    for done, leaf in enumerate(files, start=1):
        tags = set(tags_by_trace.get((leaf.rank, leaf.thread), []))
        if rules.traces_rank(leaf.rank):
            left_out = {tag for tag in tags if not rules.traces_call(tag)}
        else:
            left_out = tags
        left_out_fids = []
        if rules.has_file_rules:
            for fid, name in info_file_names(leaf.path).items():
                if not name.startswith("/"):
                    relative.add(name)
                if not rules.traces_file(file_path_for_rules(name)):
                    left_out_fids.append(fid)
        result = native.filtered_call_costs(leaf.path, left_out, c_library & tags,
                                            left_out_fids)
        rows.add(leaf, result)
        traces.append(trace_row(leaf, result, info_bytes.get(leaf.path, 0)))
        if progress:
            progress(done, len(files))
    kept = RunCosts(rows.frame(), pd.DataFrame(traces), costs.ranks)
    kept.relative_names = sorted(relative)
    return kept
