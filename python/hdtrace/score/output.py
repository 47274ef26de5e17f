"""A score on a terminal (a table per call and per group, by bytes) and
as JSON (docs/format/score.md)."""
import shutil

from .proposal import _size

FORMAT, VERSION = "hdtrace-score", 1
SORT_KEYS = {"bytes": "bytes_xml", "compact": "bytes_compact", "visits": "visits",
             "time": "time_s", "name": "name"}


def _kept_mark(row):
    if row.visits == 0:
        return " "
    if row.kept_visits == row.visits:
        return "+"
    return "-" if row.kept_visits == 0 else "~"


def _table(rows, columns, out):
    widths = [max(len(header), *(len(row[index]) for row in rows)) if rows else len(header)
              for index, (header, _) in enumerate(columns)]
    line = "  ".join(header.ljust(width) if align == "<" else header.rjust(width)
                     for (header, align), width in zip(columns, widths))
    print(line.rstrip(), file=out)
    for row in rows:
        print("  ".join(cell.ljust(width) if align == "<" else cell.rjust(width)
                        for cell, (_, align), width in zip(row, columns, widths)).rstrip(),
              file=out)


def print_score(score, out, sort="bytes", top=30, with_groups=False):
    kept = score.kept is not None
    total = score.total
    print(f"{score.name}: {len(score.ranks)} ranks, {score.traces} traces, run "
          f"{score.run_s:.3f} s, {total.visits:,} calls", file=out)
    print(f"trace bytes: {_size(total.bytes_xml)} XML, {_size(total.bytes_compact)} compact "
          f"({_size(score.fixed_xml)} and {_size(score.fixed_compact)} of them outside calls)",
          file=out)
    if kept:
        print(f"filter {score.filter_path}: keeps {score.kept.visits:,} calls "
              f"({score.kept.visits / max(total.visits, 1):.1%}) of {len(score.kept_ranks)} "
              f"ranks, {_size(score.kept.bytes_xml)} XML "
              f"({score.kept.bytes_xml / max(total.bytes_xml, 1):.1%}), "
              f"{_size(score.kept.bytes_compact)} compact "
              f"({score.kept.bytes_compact / max(total.bytes_compact, 1):.1%})", file=out)
        if score.relative_names:
            shown = ", ".join(score.relative_names[:5])
            more = len(score.relative_names) - 5
            print(f"  files named by a relative path, matched as /NAME: {shown}"
                  + (f" and {more} more" if more > 0 else ""), file=out)
    if score.extrapolation:
        print_extrapolation(score.extrapolation, kept, out)
    print(file=out)
    calls = score.calls.sort_values(SORT_KEYS[sort], ascending=(sort == "name"),
                                    ignore_index=True)
    shown = calls if not top else calls.head(top)
    columns = [("name", "<"), ("layer", "<"), ("visits", ">"), ("time[s]", ">"),
               ("time[%]", ">"), ("time/visit[us]", ">"), ("XML[B]", ">"), ("compact[B]", ">")]
    if kept:
        columns = [("flt", "<")] + columns + [("kept XML[B]", ">")]
    rows = []
    for row in shown.itertuples():
        cells = [row.name, row.layer, f"{row.visits:,}", f"{row.time_s:.3f}",
                 f"{row.share_of_run * 100:.1f}", f"{row.time_per_visit_s * 1e6:.2f}",
                 f"{row.bytes_xml:,}", f"{row.bytes_compact:,}"]
        if kept:
            cells = [_kept_mark(row)] + cells + [f"{row.kept_bytes_xml:,}"]
        rows.append(cells)
    width = shutil.get_terminal_size((100, 24)).columns
    for cells in rows:
        name_index = 1 if kept else 0
        if len(cells[name_index]) > max(12, width // 4):
            cells[name_index] = cells[name_index][:max(12, width // 4) - 1] + "…"
    _table(rows, columns, out)
    if top and len(calls) > top:
        print(f"... {len(calls) - top} more calls (--top 0 shows all)", file=out)
    if kept:
        print("flt: + kept, - left out, ~ partly kept (file or ranks rules)", file=out)
    if with_groups:
        print(file=out)
        groups = score.groups().sort_values("bytes_xml", ascending=False)
        columns = [("group", "<"), ("calls", ">"), ("visits", ">"), ("time[s]", ">"),
                   ("XML[B]", ">"), ("compact[B]", ">")]
        if kept:
            columns.append(("kept XML[B]", ">"))
        rows = []
        for group in groups.itertuples():
            cells = [group.group, str(group.calls), f"{group.visits:,}", f"{group.time_s:.3f}",
                     f"{group.bytes_xml:,}", f"{group.bytes_compact:,}"]
            if kept:
                cells.append(f"{group.kept_bytes_xml:,}")
            rows.append(cells)
        _table(rows, columns, out)


def print_extrapolation(extrapolation, kept, out):
    e = extrapolation
    low, median, high = e.per_rank["bytes_xml"]
    print(f"at {e.ranks:,} ranks{' with the filter' if kept else ''}: traces "
          f"{_size(e.traces_bytes_xml)} XML, {_size(e.traces_bytes_compact)} compact; project "
          f"{_size(e.project_bytes_xml)} XML, {_size(e.project_bytes_compact)} compact "
          f"(traces, .info, .proj)", file=out)
    print(f"  per rank now: {_size(low)} / {_size(median)} / {_size(high)} XML (min / median / "
          f"max); writer memory {_size(e.writer_memory_xml)} XML, "
          f"{_size(e.writer_memory_compact)} compact per traced thread, "
          f"{e.threads_per_rank:.1f} traced threads a rank", file=out)


def _figures(visits, time_s, bytes_xml, bytes_compact):
    return {"visits": int(visits), "time_s": float(time_s), "bytes_xml": int(bytes_xml),
            "bytes_compact": int(bytes_compact)}


def score_document(score):
    """The JSON form (docs/format/score.md)."""
    kept = score.kept is not None
    calls = []
    for row in score.calls.itertuples():
        entry = {"name": row.name, "tag": row.tag, "layer": row.layer,
                 "groups": list(row.groups),
                 **_figures(row.visits, row.time_s, row.bytes_xml, row.bytes_compact),
                 "nested_visits": int(row.nested_visits),
                 "time_per_visit_s": float(row.time_per_visit_s),
                 "share_of_run": float(row.share_of_run)}
        entry["kept"] = (_figures(row.kept_visits, row.kept_time_ns / 1e9, row.kept_bytes_xml,
                                  row.kept_bytes_compact) if kept else
                         _figures(row.visits, row.time_s, row.bytes_xml, row.bytes_compact))
        calls.append(entry)
    groups = []
    for group in score.groups().itertuples():
        entry = {"name": group.group, "about": group.about, "layer": bool(group.layer),
                 "calls": int(group.calls),
                 **_figures(group.visits, group.time_s, group.bytes_xml, group.bytes_compact)}
        if kept:
            entry["kept"] = {"visits": int(group.kept_visits),
                             "bytes_xml": int(group.kept_bytes_xml),
                             "bytes_compact": int(group.kept_bytes_compact)}
        groups.append(entry)
    document = {
        "format": FORMAT, "version": VERSION, "program": score.name,
        "ranks": len(score.ranks), "traces": score.traces, "run_s": score.run_s,
        "filter": score.filter_path,
        "kept_ranks": score.kept_ranks if kept else list(score.ranks),
        "relative_file_names": list(score.relative_names),
        "fixed": {"bytes_xml": score.fixed_xml, "bytes_compact": score.fixed_compact},
        "total": score.total.as_dict(),
        "kept": (score.kept or score.total).as_dict(),
        "calls": calls, "groups": groups, "extrapolation": None,
    }
    if score.extrapolation:
        e = score.extrapolation
        document["extrapolation"] = {
            "ranks": e.ranks,
            "per_rank": {figure: {"min": low, "median": median, "max": high}
                         for figure, (low, median, high) in e.per_rank.items()},
            "traces_bytes_xml": e.traces_bytes_xml, "traces_bytes_compact": e.traces_bytes_compact,
            "info_bytes": e.info_bytes, "project_bytes_xml": e.project_bytes_xml,
            "project_bytes_compact": e.project_bytes_compact,
            "writer_memory_bytes_xml": e.writer_memory_xml,
            "writer_memory_bytes_compact": e.writer_memory_compact,
            "traced_threads_per_rank": e.threads_per_rank,
        }
    return document
