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
    rank_rows = [
        {"rank": int(rank), "span_s": ranks["span_s"][rank], "read_s": ranks["read_s"][rank],
         "write_s": ranks["write_s"][rank], "meta_s": ranks["meta_s"][rank],
         "mpi_s": ranks["mpi_s"][rank], "compute_s": ranks["compute_s"][rank],
         "bytes_read": ranks["bytes_read"][rank], "bytes_written": ranks["bytes_written"][rank],
         "calls": ranks["calls"][rank]}
        for rank in range(len(ranks["rank"]))]
    if model.waits is not None:
        for rank, row in enumerate(rank_rows):
            row["late_sender_s"] = model.waits["late_sender_s"][rank]
            row["late_receiver_s"] = model.waits["late_receiver_s"][rank]
            row["collective_wait_s"] = model.waits["collective_wait_s"][rank]
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
        "ranks": rank_rows,
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
    return _plain(document)


def write_json(report, path):
    """Writes the document to path whole, or not at all; returns its size."""
    text = json.dumps(report_document(report), indent=1) + "\n"
    write_atomically(path, lambda out: out.write(text))
    return len(text.encode("utf-8"))
