"""The report's JSON text: the document exactly, with a line per field and a
line per item of a list field, so that line tools work on it."""
import json

import numpy as np

from hdtrace.report import json_form


def test_the_text_is_the_document_a_line_per_field_and_per_item():
    document = {"format": "hdtrace-report", "version": 1,
                "job": {"ranks": 2, "hosts": ["a", "b"], "note": "one\ntwo"},
                "damage": [],
                "ranks": [{"rank": 0, "read_s": 0.5}, {"rank": 1, "read_s": None}],
                "waits": None}
    text = json_form.document_text(document)
    assert json.loads(text) == document
    assert text.splitlines() == [
        "{",
        '"format": "hdtrace-report",',
        '"version": 1,',
        '"job": {"ranks": 2, "hosts": ["a", "b"], "note": "one\\ntwo"},',
        '"damage": [],',
        '"ranks": [',
        '{"rank": 0, "read_s": 0.5},',
        '{"rank": 1, "read_s": null}',
        "],",
        '"waits": null',
        "}"]


def test_numpy_values_become_plain_and_non_finite_ones_null():
    plain = json_form._plain({"ints": np.arange(3, dtype=np.int32),
                              "floats": np.array([0.5, np.nan, np.inf]),
                              "matrix": np.array([[1, 2], [3, 4]], dtype=np.int64),
                              "flags": np.array([True, False])})
    assert plain == {"ints": [0, 1, 2], "floats": [0.5, None, None], "matrix": [[1, 2], [3, 4]],
                     "flags": [True, False]}
    assert all(type(value) is int for value in plain["ints"])
    assert json.loads(json_form.document_text(plain)) == plain
