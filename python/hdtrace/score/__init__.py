"""hdtrace score: what each call of a run cost in trace bytes (both forms)
and time, what a filter would keep, and the run at more ranks; Score-P's
scorep-score for HDTrace (docs/user/score.md).

    score = hdtrace.score.score(project, filter_path="run.filter", ranks=16384)
    score.calls, score.total, score.kept, score.extrapolation
"""
import os

from .. import native
from .costs import run_costs
from .kept import kept_costs
from .model import Score, build
from .output import print_score, score_document
from .proposal import initial_filter, proposed_calls

__all__ = ["Score", "score", "initial_filter", "proposed_calls", "print_score",
           "score_document"]


def score(project, filter_path=None, ranks=None, progress=None):
    """The Score of an hdtrace.Project; filter_path: a filter file whose
    effect is measured on the run's traces rewritten as the filter would
    have written them (native.FilterError when it is wrong); ranks:
    extrapolate to that many; progress(done, total) after each trace."""
    rules = native.read_filter(filter_path) if filter_path else None
    costs = run_costs(project, progress)
    kept = kept_costs(project, costs, rules, progress) if rules is not None else None
    try:
        proj_bytes = os.path.getsize(project.path)
    except OSError:
        proj_bytes = 0
    return build(costs, project, kept, rules, filter_path, ranks, proj_bytes)
