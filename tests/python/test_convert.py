"""hdtrace convert: XML traces to compact and back, byte for byte; what
cannot be given back exactly is refused; errors name the file and the byte
offset and leave nothing behind."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from hdtrace import _core


def convert(build_dir, *args):
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "convert", *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=120)


def files(directory):
    return sorted(path.name for path in directory.iterdir())


def test_help(build_dir):
    result = convert(build_dir, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: hdtrace convert")
    assert "--to {xml,compact}" in result.stdout


def test_our_traces_go_to_compact_and_back_byte_for_byte(build_dir, data_dir, tmp_path):
    for trace in sorted((data_dir / "ours").glob("*.trc")):
        xml = tmp_path / trace.name
        shutil.copy(trace, xml)
        result = convert(build_dir, xml)
        assert result.returncode == 0, result.stderr
        compact = xml.with_suffix(".ctrc")
        assert _core.trace_form(str(compact)) == "compact"
        assert compact.stat().st_size < xml.stat().st_size
        back = tmp_path / f"back-{trace.name}"
        result = convert(build_dir, compact, "-o", back)
        assert result.returncode == 0, result.stderr
        assert back.read_bytes() == trace.read_bytes()
        columns, expected = _core.read_columns(str(compact)), _core.read_columns(str(trace))
        for key in ("name_code", "start_ns", "end_ns", "size", "peer", "tag", "cid", "rid"):
            assert np.array_equal(columns[key], expected[key]), key


def refused(build_dir, trace, tmp_path):
    """Converting trace to compact fails naming its first byte that a compact
    form cannot give back; nothing is left in the folder."""
    copy = tmp_path / trace.name
    shutil.copy(trace, copy)
    before = files(tmp_path)
    result = convert(build_dir, "--to", "compact", copy)
    assert result.returncode == 1
    assert result.stderr.startswith(f"hdtrace convert: error: {copy}:")
    assert ("byte " in result.stderr and "would not give this XML back" in result.stderr) or \
        "is not <Program timeAdjustment='whole seconds'>" in result.stderr, result.stderr
    assert files(tmp_path) == before, "a refused conversion left files"
    copy.unlink()


@pytest.mark.parametrize("layout", ["seed", "original"])
def test_other_layouts_are_refused(build_dir, data_dir, tmp_path, layout):
    for trace in sorted((data_dir / layout).glob("*.trc")):
        refused(build_dir, trace, tmp_path)


def test_the_original_implementations_fixtures_are_refused(build_dir, fixtures_dir, tmp_path):
    traces = sorted((fixtures_dir / "original-traces").rglob("*.trc"))
    assert traces, f"no traces in {fixtures_dir / 'original-traces'}"
    for trace in traces:
        refused(build_dir, trace, tmp_path)


def test_damage_names_the_byte_and_writes_nothing(build_dir, data_dir, tmp_path):
    xml = tmp_path / "app_node01_0_0.trc"
    shutil.copy(data_dir / "ours" / "app_node01_0_0.trc", xml)
    assert convert(build_dir, xml).returncode == 0
    compact = xml.with_suffix(".ctrc")
    xml.unlink()
    data = bytearray(compact.read_bytes())
    # The first frame's payload starts after the 18-byte file header and the
    # frame's header, whose first byte is its size.
    payload = 18 + data[18]
    data[payload + 3] ^= 0x40
    compact.write_bytes(bytes(data))
    result = convert(build_dir, compact)
    assert result.returncode == 1
    assert result.stderr == (f"hdtrace convert: error: {compact}: byte {payload}: frame 0: payload "
                             f"checksum mismatch\nhdtrace convert: nothing written for {compact}\n")
    assert files(tmp_path) == [compact.name]


def test_outputs_are_kept_unless_forced(build_dir, data_dir, tmp_path):
    xml = tmp_path / "app_node01_0_0.trc"
    shutil.copy(data_dir / "ours" / "app_node01_0_0.trc", xml)
    compact = xml.with_suffix(".ctrc")
    compact.write_bytes(b"mine")
    result = convert(build_dir, xml)
    assert result.returncode == 1
    assert f"{compact} exists (--force replaces it)" in result.stderr
    assert compact.read_bytes() == b"mine"
    assert convert(build_dir, "--force", xml).returncode == 0
    assert _core.trace_form(str(compact)) == "compact"


def test_bad_requests(build_dir, data_dir, tmp_path):
    result = convert(build_dir, tmp_path / "none.trc")
    assert result.returncode == 1 and "none.trc: no such trace file" in result.stderr
    traces = sorted((data_dir / "ours").glob("*.trc"))
    result = convert(build_dir, *traces, "-o", tmp_path / "x.ctrc")
    assert result.returncode == 1 and "takes one trace to convert, not 2" in result.stderr
    result = convert(build_dir, "--to", "xml", traces[0])
    assert result.returncode == 1 and "already a xml trace" in result.stderr
    assert files(tmp_path) == []


def test_a_project_converts_its_compact_traces_to_xml(build_dir, data_dir, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(data_dir / "ours", run)
    for trace in sorted(run.glob("*.trc")):
        assert convert(build_dir, trace).returncode == 0
        trace.rename(trace.with_suffix(".orig"))
    result = convert(build_dir, run / "app.proj")
    assert result.returncode == 0, result.stderr
    for original in sorted(run.glob("*.orig")):
        assert original.with_suffix(".trc").read_bytes() == original.read_bytes()
    # Nothing left to convert: the project's traces are XML now.
    result = convert(build_dir, run / "app.proj")
    assert result.returncode == 0 and result.stdout == ""


def test_frame_bytes_sets_the_compact_frames_size(build_dir, data_dir, tmp_path):
    """--frame-bytes: no frame decodes to more, the frames are full, they hold
    every call, and the XML comes back the same."""
    # Our trace's calls 30 times over: several frames of a few hundred bytes.
    lines = (data_dir / "ours" / "app_node01_0_0.trc").read_text().splitlines(keepends=True)
    trace = tmp_path / "many_node01_0_0.trc"
    trace.write_text("".join(lines[:2] + lines[2:-1] * 30 + lines[-1:]))
    calls = len(_core.read_columns(str(trace))["name_code"])
    assert calls == 30 * 13
    sizes = {}
    for frame_bytes in (256, 1000, None):
        compact = tmp_path / f"{frame_bytes}.ctrc"
        options = [] if frame_bytes is None else ["--frame-bytes", frame_bytes]
        result = convert(build_dir, "-q", "--to", "compact", *options, "-o", compact, trace)
        assert result.returncode == 0, result.stderr
        frames = _core.compact_frames(str(compact))
        largest = max(decoded for _, _, decoded in frames)
        if frame_bytes is None:
            assert len(frames) == 1
        else:
            # Full frames: the next call would not have fitted.
            assert frame_bytes - 100 < largest <= frame_bytes, (frame_bytes, largest)
        # The calls plus the first frame's Program record.
        assert sum(records for _, records, _ in frames) == calls + 1
        sizes[frame_bytes] = len(frames)
        back = tmp_path / f"{frame_bytes}.trc"
        assert convert(build_dir, "-q", "-o", back, compact).returncode == 0
        assert back.read_bytes() == trace.read_bytes()
    assert sizes[256] > sizes[1000] > sizes[None] == 1, sizes
    for wrong in ("255", str((64 << 20) + 1), "1M"):
        result = convert(build_dir, "--frame-bytes", wrong, "-o", tmp_path / "x.ctrc", trace)
        assert result.returncode == 2, wrong
        assert f"argument --frame-bytes: {wrong!r} is not a frame size from 256 to 67108864 " \
            "bytes" in result.stderr, result.stderr
    assert not (tmp_path / "x.ctrc").exists()


def test_a_trace_smaller_than_a_frame_is_one_frame_of_its_size(build_dir, data_dir, tmp_path):
    """By default a trace whose XML is under half the writer's frame is one
    frame sized to it (twice its XML's bytes and a page): the file is the one
    1 MiB frames give but for the header's largest frame (and its CRC)."""
    trace = tmp_path / "app_node01_0_0.trc"
    shutil.copy(data_dir / "ours" / "app_node01_0_0.trc", trace)
    sized, whole = tmp_path / "sized.ctrc", tmp_path / "whole.ctrc"
    assert convert(build_dir, "-q", "-o", sized, trace).returncode == 0
    assert convert(build_dir, "-q", "--frame-bytes", 1 << 20, "-o", whole, trace).returncode == 0
    sized_bytes, whole_bytes = sized.read_bytes(), whole.read_bytes()
    # The file header: magic (8), version (2), largest frame (u32), CRC (u32).
    largest = int.from_bytes(sized_bytes[10:14], "little")
    assert largest == 2 * trace.stat().st_size + 4096
    assert int.from_bytes(whole_bytes[10:14], "little") == 1 << 20
    assert sized_bytes[:10] == whole_bytes[:10] and sized_bytes[18:] == whole_bytes[18:]
    assert len(_core.compact_frames(str(sized))) == 1
    back = tmp_path / "back.trc"
    assert convert(build_dir, "-q", "-o", back, sized).returncode == 0
    assert back.read_bytes() == trace.read_bytes()
    # A trace of half a frame or more takes the writer's frames.
    lines = trace.read_text().splitlines(keepends=True)
    large = tmp_path / "large_node01_0_0.trc"
    large.write_text("".join(lines[:2] + lines[2:-1] * 800 + lines[-1:]))
    assert large.stat().st_size * 2 + 4096 >= 1 << 20
    converted = tmp_path / "large.ctrc"
    assert convert(build_dir, "-q", "-o", converted, large).returncode == 0
    assert int.from_bytes(converted.read_bytes()[10:14], "little") == 1 << 20


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_both_forms_get_the_mode_a_new_file_gets(build_dir, data_dir, tmp_path, mask):
    trace = sorted((data_dir / "ours").glob("*.trc"))[0]
    xml = tmp_path / trace.name
    shutil.copy(trace, xml)
    compact, back = xml.with_suffix(".ctrc"), tmp_path / f"back-{trace.name}"
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    for source, target in ((xml, compact), (compact, back)):
        result = subprocess.run(
            ["/bin/sh", "-c", f'umask {mask:03o} && exec "$@"', "convert", "/usr/bin/python3",
             "-m", "hdtrace", "convert", str(source), "-o", str(target)],
            env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert target.stat().st_mode & 0o777 == 0o666 & ~mask, oct(target.stat().st_mode)
    assert back.read_bytes() == trace.read_bytes()
    assert files(tmp_path) == sorted([xml.name, compact.name, back.name])
