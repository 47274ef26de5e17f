"""Damaged input: malformed or truncated XML, DTDs, missing traces."""

import pytest

import hdtrace
from expected import as_dict, expected_events


def test_truncated_trace_raises_with_file_line_and_column(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text()
    cut = text.index("<File_write_at")  + 30  # a SIGKILL mid-element
    trace.write_text(text[:cut])
    project = hdtrace.open(proj)
    with pytest.raises(hdtrace.ReadError) as caught:
        list(project.trace(0))
    error = caught.value
    assert error.file == str(trace)
    assert error.line == text[:cut].count("\n") + 1
    assert error.column > 0
    assert str(error).startswith(f"{trace}:{error.line}:{error.column}: ")
    with pytest.raises(hdtrace.ReadError, match="app_node01_0_0.trc:16:31: "):
        project.to_numpy()


def test_partial_keeps_every_complete_call_before_the_damage(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    full = expected_events(trace)
    text = trace.read_text()
    cut = text.index("<File_write_at") + 30
    trace.write_text(text[:cut])
    project = hdtrace.open(proj, partial=True)
    with pytest.warns(hdtrace.TraceDamageWarning, match="app_node01_0_0.trc:16:31: "):
        events = list(project.trace(0))
    names = [event.name for event in events]
    assert names == ["Init", "Send", "Isend", "hdT_Test_nested", "Wait", "File_open"]
    assert [as_dict(event) for event in events] == full[:len(events)]
    with pytest.warns(hdtrace.TraceDamageWarning):
        table = project.to_numpy()
    assert list(table[table["rank"] == 0]["name"]) == names


def test_cut_inside_an_element_with_children_drops_that_element(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text()
    trace.write_text(text[:text.index("<For rid='1'/>")])
    with pytest.warns(hdtrace.TraceDamageWarning):
        names = [e.name for e in hdtrace.open(proj, partial=True).trace(0)]
    assert names[-2:] == ["File_write_at", "File_write_all_begin"]


def test_malformed_xml(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    lines = trace.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace("fromTag='5'", "fromTag='5")
    trace.write_text("".join(lines))
    with pytest.raises(hdtrace.ReadError) as caught:
        list(hdtrace.open(proj).trace(1))
    assert caught.value.file == str(trace) and caught.value.line == 4


def test_bad_time_value_is_named(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    trace.write_text(trace.read_text().replace("time='-0.899999000'", "time='1e5'"))
    with pytest.raises(hdtrace.ReadError, match=r"app_node01_1_0.trc:4:\d+: attribute time='1e5' "
                                                r"is not a time in seconds"):
        list(hdtrace.open(proj).trace(1))


def test_wrong_root(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    trace.write_text("<?xml version='1.0'?>\n<Application name='x'/>\n")
    with pytest.raises(hdtrace.ReadError, match="root element is <Application>"):
        list(hdtrace.open(proj).trace(1))


def test_dtd_and_external_entities_are_never_loaded(copy_project, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET")
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    trace.write_text(
        "<?xml version='1.0'?>\n"
        f"<!DOCTYPE Program [<!ENTITY leak SYSTEM 'file://{secret}'>]>\n"
        "<Program><Init name='&leak;' time='0.1' end='0.2'/></Program>\n")
    with pytest.raises(hdtrace.ReadError, match="document type declaration"):
        list(hdtrace.open(proj).trace(1))
    with pytest.warns(hdtrace.TraceDamageWarning, match="document type declaration"):
        assert list(hdtrace.open(proj, partial=True).trace(1)) == []
    proj.write_text(proj.read_text().replace(
        "<Application", "<!DOCTYPE Application SYSTEM 'http://example.invalid/x.dtd'>\n<Application"))
    with pytest.raises(hdtrace.ReadError, match="document type declaration"):
        hdtrace.open(proj)


def test_malformed_project(copy_project):
    proj = copy_project("original")
    text = proj.read_text().replace('<Rank global="0" local="1" cid="1" />',
                                    '<Rank global="0" local="x" cid="1" />')
    proj.write_text(text)
    with pytest.raises(hdtrace.ReadError, match=r"orig.proj:\d+:\d+: <Rank> local='x' is not an integer"):
        hdtrace.open(proj)


def test_missing_trace_files(copy_project):
    proj = copy_project("ours")
    (proj.parent / "app_node01_1_0.trc").unlink()
    with pytest.raises(hdtrace.MissingTraceError, match="app_node01_1_0.trc") as caught:
        hdtrace.open(proj)
    assert caught.value.missing == [str(proj.parent / "app_node01_1_0.trc")]
    with pytest.warns(hdtrace.TraceDamageWarning, match="do not exist"):
        project = hdtrace.open(proj, partial=True)
    assert set(project.to_numpy()["rank"]) == {0}


def test_missing_project_file(tmp_path):
    with pytest.raises(hdtrace.ReadError, match="cannot open"):
        hdtrace.open(tmp_path / "absent.proj")


def test_to_dataframe_without_pandas_says_so(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs pandas"):
            project.to_dataframe()
    else:
        frame = project.to_dataframe()
        assert list(frame["name"]) == list(project.to_numpy()["name"])
