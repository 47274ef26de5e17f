"""The report as one self-contained HTML page: findings first, then the
job, the layers, I/O cost per rank, heatmaps, access sizes, files, HDF5
datasets, MPI and wait states; figures inline as SVG (matplotlib), tables
sortable by a click on their heading. It loads nothing from outside, so it opens offline.
"""
import html
import os
from datetime import datetime, timezone

from ..export.atomic import write_atomically
from .figures import all_figures, svg_of
from .datasets import shown_datasets
from .thresholds import DEFAULTS

#: Rows a table shows; the JSON has them all.
TABLE_ROWS = 300

SECTIONS = (("findings", "Findings"), ("job", "1. Job"), ("layers", "2. I/O layers"),
            ("io-cost", "3. I/O cost per rank"), ("heatmaps", "4. Heatmaps"),
            ("access-sizes", "5. Access sizes"), ("files", "6. Files"),
            ("datasets", "7. HDF5 datasets"), ("mpi", "8. MPI"), ("waits", "9. Wait states"),
            ("thresholds", "Thresholds"))

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px;color:#222}
h1{margin:18px 0 4px}h2{border-bottom:2px solid #ddd;margin-top:32px}
nav a{margin-right:12px}.damage{background:#fde2e1;border:1px solid #c00;padding:8px 12px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f2f2f2;cursor:pointer;user-select:none}
td.text,th.text{text-align:left}.finding{border-left:6px solid;padding:6px 12px;margin:10px 0}
.high{border-color:#c62828;background:#fdecea}.warning{border-color:#ef6c00;background:#fff3e0}
.info{border-color:#1565c0;background:#e8f1fb}.id{font-family:monospace;font-weight:bold}
.figure svg{max-width:100%;height:auto}.note{color:#555}.scroll{overflow-x:auto}
"""

_SCRIPT = """
document.querySelectorAll('table.sortable th').forEach(function (th, column) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var index = th.cellIndex, down = th.dataset.down !== '1';
    rows.sort(function (a, b) {
      var x = a.cells[index].dataset.v || a.cells[index].textContent;
      var y = b.cells[index].dataset.v || b.cells[index].textContent;
      var p = parseFloat(x), q = parseFloat(y);
      var c = (!isNaN(p) && !isNaN(q)) ? p - q : x.localeCompare(y);
      return down ? -c : c;
    });
    th.dataset.down = down ? '1' : '0';
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _number(value, unit=""):
    if value is None:  # not known: an empty cell
        return ""
    if isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = f"{value:,}"
    return f"{text}{unit}"


def _table(headings, rows, classes="sortable"):
    """headings: [(title, is_text)]; rows: [[value]] (numbers sort by value)."""
    head = "".join(f"<th class='{'text' if is_text else ''}'>{_e(title)}</th>"
                   for title, is_text in headings)
    body = []
    for row in rows[:TABLE_ROWS]:
        cells = []
        for (title, is_text), value in zip(headings, row):
            if is_text:
                cells.append(f"<td class='text'>{_e(value)}</td>")
            else:
                cells.append(f"<td data-v='{_e('' if value is None else value)}'>"
                             f"{_e(_number(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = ""
    if len(rows) > TABLE_ROWS:
        more = (f"<p class='note'>{TABLE_ROWS} of {len(rows):,} rows shown; the JSON report "
                "has them all.</p>")
    return (f"<table class='{classes}'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>{more}")


def _figure(figures, name, caption):
    figure = figures.get(name)
    if figure is None:
        return ""
    return (f"<figure class='figure' data-figure='{_e(name)}'>{svg_of(figure)}"
            f"<figcaption class='note'>{_e(caption)}</figcaption></figure>")


def _findings(report):
    if not report.findings:
        fired = "<p>No finding fired.</p>"
    else:
        fired = "".join(
            f"<div class='finding {finding.severity}'><span class='id'>{_e(finding.id)}</span> "
            f"({_e(finding.severity)}): {_e(finding.message)}<br><b>Try:</b> "
            f"{_e(finding.advice)}"
            + (f"<br><span class='note'>Files: {_e(', '.join(finding.files))}</span>"
               if finding.files else "")
            + (f"<br><span class='note'>Ranks: {_e(', '.join(map(str, finding.ranks[:20])))}"
               f"{' ...' if len(finding.ranks) > 20 else ''}</span>" if finding.ranks else "")
            + "</div>" for finding in report.findings)
    silent = [entry for entry in report.checked if not entry["fired"]]
    listed = ", ".join(
        entry["id"] + ("" if entry["checked"] else " (not checked: " + entry["reason"] + ")")
        for entry in silent)
    return fired + f"<p class='note'>Checked and silent: {_e(listed)}.</p>"


def _job(model):
    job = model.job
    start = datetime.fromtimestamp(job.start_s, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    rows = [("program", job.program), ("project", job.project), ("ranks", f"{job.ranks:,}"),
            ("traced threads", f"{job.threads:,}"),
            ("hosts", f"{len(job.hosts):,}: " + ", ".join(job.hosts[:8]) +
             (" ..." if len(job.hosts) > 8 else "")),
            ("start", start), ("run time", f"{job.run_time_s:.6f} s"),
            ("trace form", job.trace_form), ("trace bytes", f"{job.trace_bytes:,} B"),
            ("calls traced", f"{job.calls:,} top-level, {job.nested_calls:,} nested I/O calls"),
            ("clocks", job.clocks)]
    body = "".join(f"<tr><th class='text'>{_e(key)}</th><td class='text'>{_e(value)}</td></tr>"
                   for key, value in rows)
    return f"<table>{body}</table>"


def _layers(model):
    rows = []
    for layer in model.layers:
        rows.append([layer["name"], layer["calls"], layer["reads"], layer["writes"],
                     layer["bytes_read"], layer["bytes_written"], layer["time_read_s"],
                     layer["time_write_s"], layer["time_meta_s"], layer["files"]])
    table = _table([("layer", True), ("calls", False), ("reads", False), ("writes", False),
                    ("bytes read (B)", False), ("bytes written (B)", False),
                    ("read time (s)", False), ("write time (s)", False),
                    ("metadata time (s)", False), ("files", False)], rows)
    by_name = {layer["name"]: layer for layer in model.layers}
    below = []
    for layer in model.layers:
        for above, under in layer["beneath"].items():
            asked = by_name[above]
            below.append(f"{layer['name']} beneath {above}: {under['bytes_read']:,} B read, "
                         f"{under['bytes_written']:,} B written in {under['calls']:,} calls, "
                         f"for the {asked['bytes_read']:,} B read and "
                         f"{asked['bytes_written']:,} B written {above} was asked for.")
    note = "".join(f"<p>{_e(text)}</p>" for text in below)
    return (table + note + "<p class='note'>Time is summed over ranks and threads; a call "
            "nested in another counts in its own layer too.</p>")


def _sizes(model):
    rows = []
    for layer in model.layers:
        for op in ("read", "write"):
            for entry in layer["common_sizes"][op]:
                rows.append([layer["name"], op, entry["size"], entry["count"]])
    return _table([("layer", True), ("op", True), ("size (B)", False), ("count", False)], rows)


def _files(model):
    rows = [[entry["name"], entry["ranks"], "shared" if entry["shared"] else "one rank",
             "/".join(entry["layers"]), entry["bytes_read"], entry["bytes_written"],
             entry["calls"], entry["pattern"], entry["consecutive"], entry["sequential"],
             entry["random"], entry["time_s"]] for entry in model.files]
    text = _table([("file", True), ("ranks", False), ("sharing", True), ("layers", True),
                   ("bytes read (B)", False), ("bytes written (B)", False),
                   ("calls", False), ("pattern", True), ("consecutive", False),
                   ("sequential", False), ("random", False), ("time (s)", False)], rows)
    rest = model.files_left_out
    if rest:
        text += (f"<p class='note'>{rest['files']:,} more files: {rest['bytes_read']:,} B read, "
                 f"{rest['bytes_written']:,} B written, {rest['calls']:,} calls.</p>")
    return text + ("<p class='note'>Bytes and calls are those the program made (the outermost "
                   "I/O calls; for a file only the MPI library touched, the library's); patterns as Darshan counts them: consecutive accesses start "
                   "where the rank's previous one ended, sequential ones beyond where it "
                   "started (consecutive included), random ones below it.</p>")


def _datasets(model):
    return _dataset_table(model) + _library_io(model)


def _library_io(model):
    entries = model.library_io or []
    if not entries:
        return ""
    rows = [[entry["layer"], entry["call"], entry["calls"], entry["ranks"], entry["reads"],
             entry["bytes_read"], entry["writes"], entry["bytes_written"], entry["other"],
             entry["time_s"]] for entry in entries]
    table = _table([("layer", True), ("call", True), ("calls", False), ("ranks", False),
                    ("reads", False), ("bytes read (B)", False), ("writes", False),
                    ("bytes written (B)", False), ("other file calls", False),
                    ("time (s)", False)], rows)
    return ("<h3>The library's own file I/O</h3><div id='library-io'>" + table + "</div>" +
            "<p class='note'>The file calls (MPI-IO, or the C library's where no MPI-IO was "
            "used) made by the calls that move none of the program's data: HDF5's metadata "
            "(superblock, object headers, B-trees, heaps) read at opens and written at "
            "creates, flushes and closes, and the fill values of a chunked dataset written "
            "when it is created or extended. Other file calls: opens, closes, syncs, sizes "
            "and views. Time: in those file calls.</p>")


def _dataset_table(model):
    entries, rest = shown_datasets(model.datasets or [], model.dataset_limit)
    if not entries:
        return ("<p>No dataset was read or written through the HDF5 layer (a run traced with "
                "<code>HDTRACE_HDF5=0</code>, or without HDF5, has none).</p>")
    rows = [[entry["file"], entry["name"], entry["layout"] or "(opened)", entry["ranks"],
             entry["writes"], entry["bytes_written"], entry["reads"], entry["bytes_read"],
             entry["collective"], entry["collective_done_independently"], entry["converted"],
             entry["time_s"], entry["library_s"], entry["posix_bytes_written"],
             entry["posix_bytes_read"],
             entry["common_sizes"][0]["size"] if entry["common_sizes"] else None,
             entry["slowest_rank"] if entry["slowest_rank"] >= 0 else None,
             entry["dataset_bytes"] if entry["dataset_bytes"] >= 0 else None]
            for entry in entries]
    table = _table([("file", True), ("dataset", True), ("layout", True), ("ranks", False),
                    ("writes", False), ("bytes written (B)", False), ("reads", False),
                    ("bytes read (B)", False), ("asked collective", False),
                    ("done independently", False), ("converted", False), ("time (s)", False),
                    ("in HDF5 itself (s)", False), ("file bytes written (B)", False),
                    ("file bytes read (B)", False), ("most common transfer (B)", False),
                    ("slowest rank", False), ("dataset size (B)", False)], rows)
    if rest:
        table += (f"<p class='note'>{rest['datasets']:,} more datasets: "
                  f"{rest['bytes_read']:,} B read in {rest['reads']:,} reads, "
                  f"{rest['bytes_written']:,} B written in {rest['writes']:,} writes.</p>")
    # Eighteen columns: wider than the page on a narrow screen, so they scroll.
    return f"<div class='scroll' id='dataset-table'>{table}</div>" + (
        "<p class='note'>Bytes are the selections' (elements times the memory type's size); "
        "file bytes those the C library's calls beneath the transfers moved. A transfer asked "
        "collective is done independently when it made MPI-IO calls, none collective; it "
        "converted when its memory type's size is not the file type's. Time in HDF5 itself is "
        "the transfers' time outside the file calls they made. The slowest rank spent the "
        "most time in the dataset's transfers. The dataset's size is its elements, as its "
        "creation or last resizing gave them, times its type's size in the file.</p>")


def _mpi(model, figures):
    mpi = model.mpi
    calls = _table([("call", True), ("calls", False), ("time (s)", False), ("mean (s)", False),
                    ("share of run time", False)],
                   [[c["name"], c["calls"], c["time_s"], c["mean_s"], c["share"]]
                    for c in mpi["calls"]])
    collectives = _table([("collective", True), ("calls", False), ("time (s)", False),
                          ("mean (s)", False)],
                         [[c["name"], c["calls"], c["time_s"], c["mean_s"]]
                          for c in mpi["collectives"]])
    ranks = _table([("rank", False), ("MPI time (s)", False)],
                   [[rank, float(value)] for rank, value in enumerate(model.ranks["mpi_s"])])
    return (f"<p>{mpi['messages']:,} point-to-point sends, {mpi['message_bytes']:,} B.</p>"
            + _figure(figures, "mpi-calls", "Time in each MPI call, summed over ranks.")
            + calls
            + _figure(figures, "message-sizes", "Sizes of the point-to-point messages sent.")
            + _figure(figures, "communication-matrix",
                      "Bytes sent from each rank (row) to each rank (column).")
            + "<h3>Collectives</h3>" + collectives + "<h3>MPI time per rank</h3>" + ranks)


def _waits(model, figures):
    if model.waits is None:
        return ("<p>Not computed: the clocks are not aligned, so waits between ranks cannot "
                "be told. Align them with <code>hdtrace align</code> (or let the merger "
                "align them) and report again.</p>")
    waits = model.waits
    text = (f"<p>Late sender: {waits['late_sender_s'].sum():.6f} s "
            f"({waits['late_messages']:,} of {waits['messages']:,} matched messages); late "
            f"receiver: {waits['late_receiver_s'].sum():.6f} s ({waits['blocked_sends']:,} "
            f"sends held); waiting in N-to-N collectives: "
            f"{waits['collective_wait_s'].sum():.6f} s ({waits['collectives']:,} "
            "collectives).</p>")
    return text + _figure(figures, "wait-states", "Seconds each rank waited, by cause.")


def _thresholds(report):
    rows = []
    for finding, keys in report.thresholds.as_dict().items():
        for key, value in keys.items():
            changed = "set" if (finding, key) in report.thresholds.changed else "default"
            rows.append([f"{finding}.{key}", value, changed, DEFAULTS[finding][key][1]])
    return _table([("threshold", True), ("value", False), ("from", True), ("meaning", True)],
                  rows)


def render(report, timeline=None):
    """The page's HTML text."""
    model = report.model
    figures = all_figures(model)
    link = ""
    if timeline:
        link = (f" <a href='{_e(timeline)}'>Open the timeline</a> (hdtrace view) to see "
                "every call.")
    nav = "".join(f"<a href='#{key}'>{_e(title)}</a>" for key, title in SECTIONS)
    damage = ""
    if report.damage or model.job.missing_traces:
        items = [f"missing trace: {path}" for path in model.job.missing_traces] + report.damage
        damage = ("<div class='damage' id='damage'><b>Damaged or partial project:</b> the report "
                  "shows what could be read.<ul>" +
                  "".join(f"<li>{_e(item)}</li>" for item in items) + "</ul></div>")
    heatmaps = "".join(_figure(figures, f"heatmap-{layer}",
                               f"{layer}: bytes moved per rank (row) and time bin (column).")
                       for layer in model.heatmaps) or "<p>No file was read or written.</p>"
    sections = {
        "findings": _findings(report),
        "job": _job(model),
        "layers": _layers(model),
        "io-cost": _figure(figures, "io-cost", "Share of the run time each rank spent reading, "
                           "writing, in metadata calls, in other MPI calls and outside them."
                           ) + link,
        "heatmaps": heatmaps + link,
        "access-sizes": _figure(figures, "access-sizes", "Requests per size bin (Darshan's "
                                "bins), per layer.") + "<h3>Most common sizes</h3>" + _sizes(model),
        "files": _files(model),
        "datasets": _datasets(model),
        "mpi": _mpi(model, figures) + link,
        "waits": _waits(model, figures),
        "thresholds": _thresholds(report),
    }
    body = "".join(f"<section id='{key}'><h2>{_e(title)}</h2>{sections[key]}</section>"
                   for key, title in SECTIONS)
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_e(model.job.program)}: HDTrace report</title><style>{_STYLE}</style>"
            f"</head><body><h1>{_e(model.job.program)}: HDTrace report</h1>"
            f"<p class='note'>{_e(model.job.project)}</p><nav>{nav}</nav>{damage}{body}"
            f"<script>{_SCRIPT}</script></body></html>\n")


def write_page(report, path, timeline=None):
    """Writes the page whole, or not at all; returns its size in bytes."""
    if timeline:
        timeline = os.path.relpath(timeline, os.path.dirname(os.path.abspath(path)))
    text = render(report, timeline)
    write_atomically(path, lambda out: out.write(text))
    return len(text.encode("utf-8"))
