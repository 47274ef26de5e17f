"""The report's figures, drawn by matplotlib from the model.

Each function returns a matplotlib Figure (None where the run has nothing
to draw); the page inlines them as SVG. Beyond MAX_RANK_ROWS ranks, per
rank figures show rank groups (their mean), so that the page stays small
and readable at 16,384 ranks.
"""
import io
import re

import numpy as np

from .model import MAX_RANK_ROWS, SIZE_BIN_LABELS, group_label, rank_groups

COST_PARTS = (("read_s", "read", "#1f77b4"), ("write_s", "write", "#d62728"),
              ("meta_s", "metadata", "#ff7f0e"), ("mpi_s", "other MPI", "#2ca02c"),
              ("compute_s", "compute", "#c7c7c7"))


def _figure(width, height):
    from matplotlib.figure import Figure  # optional and heavy: loaded only to draw
    return Figure(figsize=(width, height), layout="constrained")


def _grouped(values, world):
    """Per rank values as means over rank groups: (values, labels)."""
    group, groups = rank_groups(world)
    if group == 1:
        return np.asarray(values, dtype=float), [str(rank) for rank in range(world)]
    padded = np.zeros(groups * group)
    padded[:len(values)] = values
    counts = np.minimum(group, world - np.arange(groups) * group)
    means = padded.reshape(groups, group).sum(axis=1) / counts
    return means, [group_label(index, group, world) for index in range(groups)]


def _stacked_rows(axes, parts, rows):
    """Horizontal bars stacked from 0, a row per rank (group): parts is
    (values, label, colour) per part, each values holding a value per row.
    Each part is one patch of all its bars, so that a figure of hundreds of
    rows draws (and writes into the SVG) a path per part, not one per bar."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path
    half = 0.85 / 2
    y = np.arange(rows, dtype=float)
    left = np.zeros(rows)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY],
                    rows)
    for values, label, colour in parts:
        right = left + np.asarray(values, dtype=float)
        corners = np.stack([np.column_stack([left, y - half]), np.column_stack([right, y - half]),
                            np.column_stack([right, y + half]), np.column_stack([left, y + half]),
                            np.column_stack([left, y - half])], axis=1)
        axes.add_patch(PathPatch(Path(corners.reshape(-1, 2), codes), facecolor=colour,
                                 edgecolor="none", label=label))
        left = right
    widest = float(left.max()) if rows else 0.0
    axes.set_xlim(0, widest * 1.05 if widest > 0 else 1)
    axes.set_ylim(rows - 0.5, -0.5)  # the first row on top


def io_cost(model):
    """Stacked bars per rank: read, write, metadata, other MPI, compute, as
    share of the run time."""
    world = model.job.ranks
    run = model.job.run_time_s
    if world == 0 or run <= 0:
        return None
    figure = _figure(9, 2.2 + min(world, MAX_RANK_ROWS) * 0.012)
    axes = figure.add_subplot()
    parts = []
    for key, label, colour in COST_PARTS:
        share, labels = _grouped(model.ranks[key] / run, world)
        parts.append((share, label, colour))
    _stacked_rows(axes, parts, len(labels))
    axes.set_xlabel("share of run time")
    axes.set_ylabel("rank" if len(labels) == world else "rank group (mean)")
    _rank_ticks(axes, labels, "y")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if world < 8 else -0.08),
                ncol=5, frameon=False)
    axes.set_title(f"Time per rank ({run:.6g} s run)")
    return figure


def _rank_ticks(axes, labels, axis):
    count = len(labels)
    step = max(1, count // 16)
    positions = np.arange(0, count, step)
    if axis == "y":
        axes.set_yticks(positions, [labels[i] for i in positions])
    else:
        axes.set_xticks(positions, [labels[i] for i in positions], rotation=90)


def heatmap(model, layer):
    matrix = model.heatmaps.get(layer)
    if matrix is None:
        return None
    axis = model.heatmap_axis
    figure = _figure(9, 2.4 + min(axis["groups"], 64) * 0.05)
    axes = figure.add_subplot()
    run = model.job.run_time_s
    image = axes.imshow(matrix, aspect="auto", interpolation="nearest", cmap="viridis",
                        extent=(0, run, axis["groups"] - 0.5, -0.5))
    colour_bar = figure.colorbar(image, ax=axes)
    colour_bar.set_label("bytes per bin")
    axes.set_xlabel(f"time since the run's start (s); bins of {axis['bin_s']:.3g} s")
    axes.set_ylabel("rank" if axis["group"] == 1 else f"rank group ({axis['group']} ranks)")
    labels = axis["labels"]
    step = max(1, len(labels) // 16)
    positions = np.arange(0, len(labels), step)
    axes.set_yticks(positions, [labels[i] for i in positions])
    axes.set_title(f"{layer}: bytes read and written over time")
    return figure


def access_sizes(model):
    layers = [layer for layer in model.layers if layer["reads"] or layer["writes"]]
    if not layers:
        return None
    figure = _figure(9, 2.6 * len(layers))
    for index, layer in enumerate(layers):
        axes = figure.add_subplot(len(layers), 1, index + 1)
        positions = np.arange(len(SIZE_BIN_LABELS))
        for offset, op, colour in ((-0.2, "read", "#1f77b4"), (0.2, "write", "#d62728")):
            counts = [layer["access_sizes"][op][label] for label in SIZE_BIN_LABELS]
            axes.bar(positions + offset, counts, width=0.4, color=colour, label=op)
        axes.set_xticks(positions, SIZE_BIN_LABELS)
        axes.set_ylabel("requests")
        axes.set_title(f"{layer['name']}: access sizes (bytes)")
        axes.legend(frameon=False)
    return figure


def mpi_calls(model, most=15):
    calls = model.mpi["calls"][:most]
    if not calls:
        return None
    figure = _figure(9, 1.2 + 0.28 * len(calls))
    axes = figure.add_subplot()
    positions = np.arange(len(calls))
    axes.barh(positions, [call["time_s"] for call in calls], color="#2ca02c")
    axes.set_yticks(positions, [call["name"] for call in calls])
    axes.invert_yaxis()
    axes.set_xlabel("time summed over ranks and threads (s)")
    axes.set_title("MPI calls by time (file I/O left out)")
    return figure


def message_sizes(model):
    sizes = model.mpi["message_sizes"]
    if not sizes or not sum(sizes.values()):
        return None
    figure = _figure(9, 2.4)
    axes = figure.add_subplot()
    positions = np.arange(len(SIZE_BIN_LABELS))
    axes.bar(positions, [sizes[label] for label in SIZE_BIN_LABELS], color="#9467bd")
    axes.set_xticks(positions, SIZE_BIN_LABELS)
    axes.set_ylabel("messages")
    axes.set_xlabel("message size (bytes)")
    axes.set_title("Point-to-point message sizes")
    return figure


def communication_matrix(model):
    matrix = model.mpi["matrix"]
    if not matrix.any():
        return None
    labels = model.mpi["matrix_labels"]
    side = 4.5 if len(labels) <= 16 else 7
    figure = _figure(side + 1.5, side)
    axes = figure.add_subplot()
    image = axes.imshow(matrix, interpolation="nearest", cmap="magma_r")
    figure.colorbar(image, ax=axes).set_label("bytes sent")
    step = max(1, len(labels) // 16)
    positions = np.arange(0, len(labels), step)
    axes.set_xticks(positions, [labels[i] for i in positions], rotation=90)
    axes.set_yticks(positions, [labels[i] for i in positions])
    group = model.mpi["matrix_group"]
    axes.set_xlabel("receiver" + ("" if group == 1 else f" (groups of {group})"))
    axes.set_ylabel("sender" + ("" if group == 1 else f" (groups of {group})"))
    axes.set_title("Bytes sent, rank to rank")
    return figure


def wait_states(model):
    waits = model.waits
    if waits is None:
        return None
    world = model.job.ranks
    parts = (("late_sender_s", "late sender", "#8c564b"),
             ("late_receiver_s", "late receiver", "#e377c2"),
             ("collective_wait_s", "wait at N-to-N collective", "#17becf"))
    if not any(waits[key].any() for key, _, _ in parts):
        return None
    figure = _figure(9, 2.2 + min(world, MAX_RANK_ROWS) * 0.012)
    axes = figure.add_subplot()
    grouped = []
    for key, label, colour in parts:
        values, labels = _grouped(waits[key], world)
        grouped.append((values, label, colour))
    _stacked_rows(axes, grouped, len(labels))
    _rank_ticks(axes, labels, "y")
    axes.set_xlabel("seconds waiting")
    axes.set_ylabel("rank" if len(labels) == world else "rank group (mean)")
    axes.legend(frameon=False)
    axes.set_title("Wait states per rank")
    return figure


def all_figures(model):
    """{name: Figure} of every figure the run has something to draw for."""
    figures = {"io-cost": io_cost(model)}
    for layer in model.heatmaps:
        figures[f"heatmap-{layer}"] = heatmap(model, layer)
    figures.update({"access-sizes": access_sizes(model), "mpi-calls": mpi_calls(model),
                    "message-sizes": message_sizes(model),
                    "communication-matrix": communication_matrix(model),
                    "wait-states": wait_states(model)})
    return {name: figure for name, figure in figures.items() if figure is not None}


def svg_of(figure):
    """The figure as SVG text (without the XML declaration), to inline."""
    import matplotlib
    out = io.StringIO()
    # Text as text, not as paths: a tenth of the bytes, and the page's own font.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "hdtrace"}):
        figure.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    start = text.find("<svg")
    text = text[start:] if start >= 0 else text
    # The creator's RDF block names outside vocabularies; the page needs none of it.
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, count=1, flags=re.S)
