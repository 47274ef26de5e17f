"""An independent reading of a .trc with ElementTree: what hdtrace must return.

The rules, from docs/format/trace.md: absolute time = timeAdjustment + value (exact, in
nanoseconds); a <Nested> block belongs to the element after it; attributes
other than time/end are numbers where they look like numbers, except the
ones that hold names.
"""
import re
import xml.etree.ElementTree as ET
from decimal import Decimal

TEXT_ATTRIBUTES = {"name", "key", "value", "cFile", "representation", "whence"}


def convert(name, text):
    if name not in TEXT_ATTRIBUTES:
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        if re.fullmatch(r"-?\d*\.\d+|-?\d+\.\d*", text):
            return float(text)
    return text


def to_ns(adjustment, text):
    return int((Decimal(adjustment) + Decimal(text)) * 1_000_000_000)


def _element(element, adjustment, pending=None):
    start = element.get("time")
    end = element.get("end", start)
    children = list(pending or [])
    waiting = []
    for child in element:
        if child.tag == "Nested":
            waiting.extend(_nested(child, adjustment))
        else:
            children.append(_element(child, adjustment, waiting))
            waiting = []
    children.extend(waiting)
    return {
        "name": element.tag,
        "start_ns": None if start is None else to_ns(adjustment, start),
        "end_ns": None if start is None else to_ns(adjustment, end),
        "attrs": {key: convert(key, value) for key, value in element.attrib.items()
                  if key not in ("time", "end")},
        "children": children,
    }


def _nested(block, adjustment):
    calls, waiting = [], []
    for child in block:
        if child.tag == "Nested":
            waiting.extend(_nested(child, adjustment))
        else:
            calls.append(_element(child, adjustment, waiting))
            waiting = []
    return calls + waiting


def expected_events(path):
    root = ET.parse(path).getroot()
    assert root.tag == "Program"
    adjustment = root.get("timeAdjustment", "0")
    events, waiting = [], []
    for child in root:
        if child.tag == "Nested":
            waiting.extend(_nested(child, adjustment))
        else:
            events.append(_element(child, adjustment, waiting))
            waiting = []
    return events + waiting


def as_dict(event):
    return {"name": event.name, "start_ns": event.start_ns, "end_ns": event.end_ns,
            "attrs": event.attrs, "children": [as_dict(child) for child in event.children]}
