"""The report as JSON: the document docs/format/report.md describes.

Plain types only, every figure in the unit its name says (_s: seconds,
bytes_: bytes), so that scripts compare runs without the package. The
version changes when a field changes meaning or goes away; new fields may
be added within a version.
"""
import json
import math

import numpy as np

from ..export.atomic import write_atomically
from .datasets import shown_datasets

FORMAT = "hdtrace-report"
VERSION = 1


def _plain(value):
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()
                if not str(key).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biu" or (value.dtype.kind == "f" and np.isfinite(value).all()):
            return value.tolist()  # plain already: no value by value walk
        return _plain(value.tolist())
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def report_document(report):
    """The JSON document of a Report, as plain dicts and lists."""
    model = report.model
    job = model.job
    ranks = model.ranks
    # A row per rank, made column by column: at thousands of ranks a value
    # at a time through _plain took most of the document's time.
    columns = {"rank": list(range(len(ranks["rank"])))}
    for name in ("span_s", "read_s", "write_s", "meta_s", "mpi_s", "compute_s", "bytes_read",
                 "bytes_written", "calls"):
        columns[name] = _plain(np.asarray(ranks[name]))
    if model.waits is not None:
        for name in ("late_sender_s", "late_receiver_s", "collective_wait_s"):
            columns[name] = _plain(np.asarray(model.waits[name]))
    rank_rows = [dict(zip(columns, row)) for row in zip(*columns.values())]
    mpi = model.mpi
    shown, datasets_left_out = shown_datasets(model.datasets or [], model.dataset_limit)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "job": {
            "program": job.program, "project": job.project, "ranks": job.ranks,
            "threads": job.threads, "hosts": job.hosts, "start_s": job.start_s,
            "run_time_s": job.run_time_s, "trace_form": job.trace_form,
            "trace_bytes": job.trace_bytes, "calls": job.calls,
            "nested_calls": job.nested_calls, "clocks": job.clocks,
            "clocks_aligned": job.clocks_aligned, "missing_traces": job.missing_traces,
        },
        "damage": report.damage,
        "layers": model.layers,
        "files": model.files,
        "files_left_out": model.files_left_out,
        "datasets": shown,
        "datasets_left_out": datasets_left_out,
        "library_io": model.library_io or [],
        "ranks": None,  # plain already, set below
        "mpi": {
            "calls": mpi["calls"], "calls_left_out": mpi.get("calls_left_out", 0),
            "collectives": mpi["collectives"], "messages": mpi["messages"],
            "message_bytes": mpi["message_bytes"], "message_sizes": mpi["message_sizes"],
            "common_message_sizes": mpi.get("common_message_sizes", []),
            "matrix_group": mpi["matrix_group"], "matrix_labels": mpi["matrix_labels"],
            "matrix_bytes": mpi["matrix"],
        },
        "waits": None if model.waits is None else {
            "late_sender_s": float(model.waits["late_sender_s"].sum()),
            "late_receiver_s": float(model.waits["late_receiver_s"].sum()),
            "collective_wait_s": float(model.waits["collective_wait_s"].sum()),
            "late_messages": model.waits["late_messages"],
            "blocked_sends": model.waits["blocked_sends"],
            "messages": model.waits["messages"], "collectives": model.waits["collectives"],
        },
        "findings": [finding.as_dict() for finding in report.findings],
        "checked": report.checked,
        "thresholds": report.thresholds.as_dict(),
    }
    document = _plain(document)
    document["ranks"] = rank_rows
    return document


def document_text(document):
    """The document as JSON text: a line per field of the document, and a
    line per item of a list (a rank, a file, a finding), readable with line
    tools as indented JSON is. Written by json's C encoder, where indented
    JSON takes its Python one (seconds at thousands of ranks)."""
    lines = ["{"]
    for index, (key, value) in enumerate(document.items()):
        comma = "," if index < len(document) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"{json.dumps(key)}: [")
            lines.extend(json.dumps(item) + ("," if position < len(value) - 1 else "")
                         for position, item in enumerate(value))
            lines.append("]" + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_json(report, path):
    """Writes the document to path whole, or not at all; returns its size."""
    text = document_text(report_document(report))
    write_atomically(path, lambda out: out.write(text))
    return len(text.encode("utf-8"))
