"""The score of a traced run: per call and per group, visits, time and
trace bytes in both forms, what a filter keeps, and the run extrapolated
to more ranks."""
from dataclasses import dataclass, field

import numpy as np

from .. import native

#: The figures summed per call, per group and in total.
FIGURES = ("visits", "time_ns", "bytes_xml", "bytes_compact")


@dataclass
class Totals:
    visits: int
    time_s: float
    bytes_xml: int
    bytes_compact: int

    def as_dict(self):
        return {"visits": self.visits, "time_s": self.time_s, "bytes_xml": self.bytes_xml,
                "bytes_compact": self.bytes_compact}


@dataclass
class Extrapolation:
    """The run's per-rank figures (spread over the run's ranks) times ranks."""
    ranks: int
    per_rank: dict            # figure -> (min, median, max) over the run's ranks
    traces_bytes_xml: int     # all traces, XML form
    traces_bytes_compact: int
    info_bytes: int           # all .info files
    project_bytes_xml: int    # traces, .info files and the .proj
    project_bytes_compact: int
    writer_memory_xml: int    # per traced thread
    writer_memory_compact: int
    threads_per_rank: float


@dataclass
class Score:
    name: str
    ranks: list               # every rank of the run
    traces: int
    run_s: float              # the longest trace's span
    calls: "pandas.DataFrame"  # one row per call tag, by bytes_xml, largest first
    total: Totals             # bytes: whole traces
    fixed_xml: int            # bytes outside calls, all traces
    fixed_compact: int
    kept: Totals = None       # with a filter: the traces it would write
    kept_ranks: list = field(default_factory=list)
    filter_path: str = None
    relative_names: list = field(default_factory=list)  # files file rules matched as /NAME
    # rank -> visits, bytes_xml, bytes_compact, info_bytes (and kept_*)
    per_rank: "pandas.DataFrame" = None
    extrapolation: Extrapolation = None

    def groups(self):
        """One row per group of the dialect: the sums of its calls."""
        import pandas as pd  # slow to import: only a score needs it
        rows = []
        for name, about, layer in native.dialect_groups():
            members = self.calls[self.calls["groups"].map(lambda groups: name in groups)]
            row = {"group": name, "about": about, "layer": layer, "calls": len(members)}
            for figure in ("visits", "time_s", "bytes_xml", "bytes_compact"):
                row[figure] = members[figure].sum()
            if self.kept is not None:
                for figure in ("kept_visits", "kept_bytes_xml", "kept_bytes_compact"):
                    row[figure] = members[figure].sum()
            rows.append(row)
        return pd.DataFrame(rows)


def _per_tag(calls):
    return calls.groupby("tag", sort=False)[list(FIGURES)].sum()


def _totals(costs):
    """Whole traces: every call, and the bytes outside calls; time of the
    calls at the top level of the main traces (a nested call's time is its
    caller's too, and a layer call's holds the MPI calls it made)."""
    calls = costs.calls
    outermost = ~(calls["nested"].astype(bool) | calls["apart"].astype(bool))
    return Totals(int(calls["visits"].sum()), float(calls[outermost]["time_ns"].sum()) / 1e9,
                  int(costs.traces["file_xml"].sum()), int(costs.traces["file_compact"].sum()))


def _per_rank(costs):
    import pandas as pd  # slow to import: only a score needs it
    traces = costs.traces.groupby("rank")[["file_xml", "file_compact", "info_bytes"]].sum()
    visits = costs.calls.groupby("rank")["visits"].sum().reindex(traces.index, fill_value=0)
    return pd.DataFrame({"visits": visits, "bytes_xml": traces["file_xml"],
                         "bytes_compact": traces["file_compact"],
                         "info_bytes": traces["info_bytes"]})


def build(costs, project, kept=None, rules=None, filter_path=None, extrapolate_to=None,
          proj_bytes=0):
    """The Score of a run's RunCosts; kept: the RunCosts of the same run as
    the filter (rules, read from filter_path) would have written it."""
    import pandas as pd  # slow to import: only a score needs it
    per_tag = _per_tag(costs.calls)
    entries = {tag: (name, layer, list(groups)) for tag, name, layer, groups in
               native.dialect_calls()}
    table = pd.DataFrame({"tag": per_tag.index})
    table["name"] = [entries.get(tag, (tag, "", []))[0] for tag in per_tag.index]
    table["layer"] = [entries.get(tag, (tag, "other", []))[1] for tag in per_tag.index]
    table["groups"] = [entries.get(tag, (tag, "", []))[2] for tag in per_tag.index]
    for figure in FIGURES:
        table[figure] = per_tag[figure].to_numpy()
    nested = costs.calls[costs.calls["nested"]].groupby("tag")["visits"].sum()
    table["nested_visits"] = [int(nested.get(tag, 0)) for tag in per_tag.index]
    table["time_s"] = table["time_ns"] / 1e9
    table["time_per_visit_s"] = table["time_s"] / table["visits"].clip(lower=1)
    traces = costs.traces
    if len(traces):
        traces = traces[~traces["apart"]]  # threads: the main traces
    run_s = float(traces["span_ns"].max()) / 1e9 if len(traces) else 0.0
    all_time = run_s * max(len(traces), 1)
    table["share_of_run"] = table["time_s"] / all_time if all_time > 0 else 0.0
    if kept is not None:
        kept_tag = _per_tag(kept.calls)
        for figure in FIGURES:
            table["kept_" + figure] = [int(kept_tag[figure].get(tag, 0)) for tag in per_tag.index]
    table = table.sort_values(["bytes_xml", "visits"], ascending=False, ignore_index=True)

    score = Score(project.name, costs.ranks, len(traces), run_s, table, _totals(costs),
                  int(costs.traces["fixed_xml"].sum()) if len(traces) else 0,
                  int(costs.traces["fixed_compact"].sum()) if len(traces) else 0,
                  filter_path=filter_path)
    score.per_rank = _per_rank(costs)
    if kept is not None:
        score.kept = _totals(kept)
        score.kept_ranks = [rank for rank in costs.ranks if rules.traces_rank(int(rank))]
        score.relative_names = list(getattr(kept, "relative_names", []))
        for column, values in _per_rank(kept).items():
            score.per_rank["kept_" + column] = values
    if extrapolate_to:
        score.extrapolation = extrapolate(score, traces, extrapolate_to, proj_bytes)
    return score


def extrapolate(score, traces, ranks, proj_bytes):
    """The run at `ranks` ranks: each figure per rank (as kept by the filter,
    if any) times ranks; the spread over the run's ranks beside it."""
    per_rank = score.per_rank
    prefix = "kept_" if score.kept is not None else ""
    spread = {}
    for figure in ("bytes_xml", "bytes_compact", "visits", "info_bytes"):
        values = per_rank[prefix + figure].to_numpy()
        spread[figure] = (int(values.min()), float(np.median(values)), int(values.max()))
    count = len(per_rank)
    scale = ranks / count if count else 0
    threads = len(traces) / count if count else 1.0
    traces_xml = int(round(per_rank[prefix + "bytes_xml"].sum() * scale))
    traces_compact = int(round(per_rank[prefix + "bytes_compact"].sum() * scale))
    info = int(round(per_rank[prefix + "info_bytes"].sum() * scale))
    proj = int(round(proj_bytes * scale))
    return Extrapolation(ranks, spread, traces_xml, traces_compact, info,
                         traces_xml + info + proj, traces_compact + info + proj,
                         native.writer_memory_bytes(False), native.writer_memory_bytes(True),
                         threads)
