"""An initial filter from a score, as scorep-score -g makes one: leave out
the calls that are frequent (many trace bytes) and cheap (little time per
visit), never an I/O call nor the calls that frame the run."""

#: The defaults: a call is cheap below this time per visit, frequent from
#: this share of the run's trace bytes (XML).
CHEAP_S = 10e-6
FREQUENT_SHARE = 0.01
#: Never proposed: the I/O layers' calls and the run's beginning and end.
KEPT_GROUPS = ("mpiio", "lifecycle")


def _size(count):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if count < 1024 or unit == "TiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024


def proposed_calls(score, cheap_s=CHEAP_S, frequent_share=FREQUENT_SHARE):
    """The rows of score.calls the initial filter leaves out."""
    calls = score.calls
    total = max(score.total.bytes_xml, 1)
    chosen = (calls["layer"] == "mpi") & ~calls["groups"].map(
        lambda groups: any(group in groups for group in KEPT_GROUPS))
    chosen &= calls["time_per_visit_s"] <= cheap_s
    chosen &= calls["bytes_xml"] >= frequent_share * total
    return calls[chosen]


def initial_filter(score, cheap_s=CHEAP_S, frequent_share=FREQUENT_SHARE):
    """The text of the initial filter: a header, then one rule a call with
    what it saves."""
    chosen = proposed_calls(score, cheap_s, frequent_share)
    total_xml = max(score.total.bytes_xml, 1)
    total_compact = max(score.total.bytes_compact, 1)
    saved_xml, saved_compact = int(chosen["bytes_xml"].sum()), int(chosen["bytes_compact"].sum())
    lines = [
        f"# Initial filter for {score.name} (hdtrace score -g): leaves out the MPI calls that",
        f"# take at least {frequent_share:.0%} of the trace bytes and at most "
        f"{cheap_s * 1e6:g} us a visit; keeps every I/O call.",
        f"# Saves {_size(saved_xml)} of {_size(total_xml)} XML "
        f"({saved_xml / total_xml:.1%}), {_size(saved_compact)} of {_size(total_compact)} "
        f"compact ({saved_compact / total_compact:.1%}).",
    ]
    if not len(chosen):
        lines.append("# No call is both frequent and cheap: nothing to leave out.")
    for row in chosen.itertuples():
        lines.append(f"exclude call {row.name:<24} # {row.visits:,} visits, "
                     f"{row.time_per_visit_s * 1e6:.2f} us each: {_size(row.bytes_xml)} XML "
                     f"({row.bytes_xml / total_xml:.1%}), {_size(row.bytes_compact)} compact")
    return "\n".join(lines) + "\n"
