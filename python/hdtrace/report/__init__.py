"""hdtrace.report: what a run did and what is wrong with it.

    import hdtrace
    report = hdtrace.report.build(hdtrace.open("run.proj"))
    report.findings          # the Findings that fired, most severe first
    report.tables()          # {"layers": DataFrame, "files": ..., "datasets": ..., ...}
    report.figures()         # {"io-cost": matplotlib Figure, ...}
    report.write_html("run-report.html"); report.write_json("run-report.json")

One model (report.model) feeds the findings, the JSON and the page.
"""
import warnings
from dataclasses import dataclass

from ..errors import TraceDamageWarning
from .figures import all_figures
from .findings import Finding, run_checks
from .json_form import report_document, write_json
from .model import Model, build_model
from .page import write_page
from .thresholds import DEFAULTS, ThresholdError, Thresholds, thresholds_from

__all__ = ["Report", "build", "Finding", "Thresholds", "ThresholdError", "DEFAULTS",
           "thresholds_from"]


@dataclass
class Report:
    model: Model
    findings: list
    checked: list
    thresholds: Thresholds
    damage: list  # what could not be read, one text each

    def document(self):
        """The JSON document (docs/format/report.md) as plain dicts and lists."""
        return report_document(self)

    def write_json(self, path):
        return write_json(self, path)

    def write_html(self, path, timeline=None):
        return write_page(self, path, timeline)

    def figures(self):
        """{name: matplotlib Figure} of the page's figures."""
        return all_figures(self.model)

    def tables(self):
        """{name: pandas DataFrame}: layers, files, datasets, library_io,
        ranks, mpi_calls, collectives, findings (needs pandas)."""
        import pandas
        document = self.document()
        layers = [{key: value for key, value in layer.items()
                   if key not in ("access_sizes", "common_sizes", "beneath_mpi_io", "beneath")}
                  for layer in document["layers"]]
        return {
            "layers": pandas.DataFrame(layers),
            "files": pandas.DataFrame(document["files"]),
            "datasets": pandas.DataFrame(document["datasets"]),
            "library_io": pandas.DataFrame(document["library_io"]),
            "ranks": pandas.DataFrame(document["ranks"]),
            "mpi_calls": pandas.DataFrame(document["mpi"]["calls"]),
            "collectives": pandas.DataFrame(document["mpi"]["collectives"]),
            "findings": pandas.DataFrame(document["findings"]),
        }


def build(project, thresholds=None, file_limit=100, progress=None, layers=True,
          dataset_limit=100):
    """The Report of an hdtrace.Project (its damage warnings are kept in
    report.damage and named at the top of the page); progress(text), if
    given, is told each step as it starts; layers: with the calls of the
    layers traced apart (HDF5), or the main traces' alone."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TraceDamageWarning)
        model = build_model(project, file_limit=file_limit, progress=progress, layers=layers,
                            dataset_limit=dataset_limit)
    damage = [str(warning.message) for warning in caught
              if issubclass(warning.category, TraceDamageWarning)]
    for warning in caught:
        if not issubclass(warning.category, TraceDamageWarning):
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
    thresholds = thresholds or Thresholds()
    if progress:
        progress("checking the findings")
    findings, checked = run_checks(model, thresholds)
    return Report(model, findings, checked, thresholds, sorted(set(damage)))
