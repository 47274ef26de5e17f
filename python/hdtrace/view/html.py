"""The self-contained HTML page of hdtrace view: page.html with the CSS, the
script (timeline.js) and the timeline's data inlined, so it opens from disk
with no network and no server.

The data is columnar JSON: one array per column over all calls, names and
attribute texts as indices into tables, times in integer nanoseconds since
the run's first call.
"""
import datetime
import html
import json
import os
import re

from ..calls import FAMILIES, FAMILY_COLOURS, POSIX_CALLS, family_of
from ..export.atomic import write_atomically

_HERE = os.path.dirname(os.path.abspath(__file__))


def _attribute_text(attrs, elements):
    lines = [f"{key}={value}" for key, value in attrs.items()]
    for tag, child in elements:
        lines.append(" ".join([tag] + [f"{key}={value}" for key, value in child.items()]))
    return "\n".join(lines)


def page_data(timeline):
    """The dict embedded as window.HDTRACE_DATA."""
    origin = timeline.origin_ns
    attr_index, attr_text, attrs_column = {}, [], []
    for attrs, elements in zip(timeline.attrs, timeline.elements):
        text = _attribute_text(attrs, elements)
        index = attr_index.get(text)
        if index is None:
            index = attr_index[text] = len(attr_text)
            attr_text.append(text)
        attrs_column.append(index)
    moment = datetime.datetime.fromtimestamp(origin / 1e9, datetime.timezone.utc)
    posix_codes = {code for code, name in enumerate(timeline.names) if name in POSIX_CALLS}
    return {
        "name": timeline.name,
        "originNs": str(origin),
        "originText": moment.strftime("%Y-%m-%d %H:%M:%S.%f UTC"),
        "rows": [{"label": row.label, "rank": row.rank, "thread": row.thread, "host": row.host}
                 for row in timeline.rows],
        "names": timeline.names,
        "families": list(FAMILIES),
        "familyColours": list(FAMILY_COLOURS),
        "nameFamily": [FAMILIES.index(family_of(name)) for name in timeline.names],
        "attrText": attr_text,
        "calls": {
            "row": timeline.row,
            "name": timeline.name_index,
            "depth": timeline.depth,
            "start": [start - origin for start in timeline.start_ns],
            "end": [end - origin for end in timeline.end_ns],
            "attrs": attrs_column,
        },
        "messages": {
            "send": [message[0] for message in timeline.messages],
            "recv": [message[1] for message in timeline.messages],
            "completed": [message[4] - origin for message in timeline.messages],
        },
        "unmatched": timeline.unmatched_sends + timeline.unmatched_receives,
        # The POSIX calls an MPI call made are the I/O that reached the file
        # system: a run that has them opens with the nested lanes shown.
        "nestedShown": any(depth and code in posix_codes
                           for depth, code in zip(timeline.depth, timeline.name_index)),
    }


def _asset(name):
    with open(os.path.join(_HERE, name), encoding="utf-8") as source:
        return source.read()


def render_html(timeline):
    """The page as a string."""
    # "</" never appears inside the inlined JSON, so it cannot close the script element.
    data = json.dumps(page_data(timeline), separators=(",", ":")).replace("</", "<\\/")
    values = {"TITLE": html.escape(timeline.name), "CSS": _asset("timeline.css"),
              "SCRIPT": _asset("timeline.js"), "DATA": data}
    # One pass, so that an inserted value is never searched for placeholders.
    return re.sub(r"@(TITLE|CSS|SCRIPT|DATA)@", lambda match: values[match.group(1)],
                  _asset("page.html"))


def write_html(timeline, path):
    """Writes the page to path (atomically); returns its size in bytes."""
    page = render_html(timeline)
    write_atomically(path, lambda out: out.write(page))
    return len(page.encode("utf-8"))
