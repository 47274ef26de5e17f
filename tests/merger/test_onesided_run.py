"""End to end for matched probes and one-sided communication: trace
tests/mpiwrapper's mprobe and rma programs, merge each run with
project-merger (the .info Win lines must not disturb it), and read the
project with the hdtrace package: match_messages pairs every Mrecv and
Imrecv with its send, and the exports show the new calls."""
import collections
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest

import buildtree

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           # tests/mpiwrapper/conftest.py: RMA_ENV
           "OMPI_MCA_osc": "sm,pt2pt"}


def _trace_and_merge(build_dir, tmp_path_factory, program, sanitised, ranks):
    executable = build_dir / "tests" / "mpiwrapper" / program
    merger = build_dir / "merger" / "project-merger"
    buildtree.require_built(executable, merger)
    traces = tmp_path_factory.mktemp(program)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HDTRACE_")}
    env.update(MPI_ENV, HDTRACE_DIR=str(traces))
    result = subprocess.run(["mpiexec", "-n", str(ranks), "--oversubscribe", str(executable)],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{program} failed:\n{result.stdout}\n{result.stderr}"
    merged = subprocess.run([str(merger), str(traces / sanitised)], capture_output=True,
                            text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    assert merged.stderr == "", merged.stderr
    buildtree.use_python_package()
    import hdtrace
    project = hdtrace.open(traces / f"{sanitised}.proj")
    project.trace_dir = traces  # for the tests that read the .trc files themselves
    return project


@pytest.fixture(scope="module")
def mprobe_project(build_dir, tmp_path_factory):
    return _trace_and_merge(build_dir, tmp_path_factory, "mprobe_traced", "mprobe-traced", 4)


@pytest.fixture(scope="module")
def rma_project(build_dir, tmp_path_factory):
    return _trace_and_merge(build_dir, tmp_path_factory, "rma_traced", "rma-traced", 2)


def test_match_messages_pairs_mrecv_and_imrecv(mprobe_project):
    import hdtrace
    table = mprobe_project.to_numpy()
    matches = hdtrace.match_messages(mprobe_project)
    assert len(matches.unmatched_sends) == 0, [table[r] for r in matches.unmatched_sends]
    assert len(matches.unmatched_recvs) == 0, [table[r] for r in matches.unmatched_recvs]
    assert len(matches.incomplete) == 0
    got = sorted((str(table["name"][p["send_row"]]), str(table["name"][p["recv_row"]]),
                  int(p["sender"]), int(p["receiver"]), int(p["tag"]), int(p["size"]))
                 for p in matches.pairs)
    # mprobe.c: rank 2k sends to rank 2k+1, received after a matched probe;
    # tag 24 goes over the communicator with reversed ranks.
    want = []
    for sender in (0, 2):
        receiver = sender + 1
        want += [("Send", "Mrecv", sender, receiver, 21, 40),
                 ("Send", "Mrecv", sender, receiver, 22, 40),
                 ("Send", "Imrecv", sender, receiver, 23, 28),
                 ("Send", "Imrecv", sender, receiver, 24, 0),
                 ("Send", "Mrecv", sender, receiver, 25, 12),
                 ("Send", "Mrecv", sender, receiver, 26, 8),
                 ("Send", "Mrecv", sender, receiver, 27, 12),
                 ("Send", "Mrecv", sender, receiver, 27, 20)]
    assert got == sorted(want)
    # Tag 27: two messages of one envelope, probed in send order and received
    # in the other: each receive is paired with the send its probe matched.
    for pair in matches.pairs:
        if int(pair["tag"]) == 27:
            assert int(table["size"][pair["recv_row"]]) == int(pair["size"]), (
                "the receive of a message is paired with another send")
    # Imrecv completes in the Wait/Test of its rid, after it started.
    for pair in matches.pairs:
        if table["name"][pair["recv_row"]] == "Imrecv":
            assert pair["recv_complete"] >= pair["recv_start"]


def test_mprobe_project_exports_show_matched_probes(mprobe_project, tmp_path):
    from hdtrace.export.chrome import chrome_trace
    from hdtrace.view.model import build_timeline
    trace = chrome_trace(build_timeline(mprobe_project))
    names = {event["name"]: event["cat"] for event in trace["traceEvents"] if event["ph"] == "X"}
    for name in ("Mprobe", "Improbe", "Mrecv", "Imrecv"):
        assert names.get(name) == "point-to-point", f"{name}: {names.get(name)}"
    flows = [event for event in trace["traceEvents"] if event.get("cat") == "message"]
    assert len(flows) == 2 * 16  # a start and an end per matched message
    json.dumps(trace)


def test_rma_project_reads_and_exports(rma_project):
    from hdtrace.export.chrome import chrome_trace
    from hdtrace.view.model import build_timeline
    table = rma_project.to_numpy()
    names = set(str(name) for name in table["name"])
    for name in ("Win_create", "Win_allocate", "Win_allocate_shared", "Win_create_dynamic",
                 "Put", "Get", "Accumulate", "Rput", "Win_fence", "Win_lock", "Win_post",
                 "Win_free"):
        assert name in names, f"{name} missing from the table"
    puts = table[table["name"] == "Put"]
    assert (puts["size"] >= 0).all()
    trace = chrome_trace(build_timeline(rma_project))
    categories = {event["name"]: event["cat"] for event in trace["traceEvents"]
                  if event["ph"] == "X"}
    assert categories["Put"] == categories["Win_fence"] == "one-sided"
    put = next(event for event in trace["traceEvents"] if event.get("name") == "Put")
    assert {"size", "targetRank", "disp", "wid"} <= set(put["args"])


def test_html_view_files_rma_and_matched_probes(rma_project, mprobe_project):
    """The view's legend has the one-sided family; every call is filed under it or
    point-to-point as families.py says, and the page text shows the attributes."""
    from hdtrace.view.html import page_data, render_html
    from hdtrace.view.model import build_timeline
    for project, name, family in ((rma_project, "Put", "one-sided"),
                                  (rma_project, "Win_lock_all", "one-sided"),
                                  (mprobe_project, "Mrecv", "point-to-point")):
        timeline = build_timeline(project)
        data = page_data(timeline)
        assert "one-sided" in data["families"]
        index = data["names"].index(name)
        assert data["families"][data["nameFamily"][index]] == family
        assert name in render_html(timeline)
    texts = page_data(build_timeline(rma_project))["attrText"]
    assert any("targetRank" in text and "wid" in text for text in texts)


RMA_KINDS = {"Put": "RMA_PUT", "Rput": "RMA_PUT", "Get": "RMA_GET", "Rget": "RMA_GET",
             "Accumulate": "RMA_ATOMIC", "Raccumulate": "RMA_ATOMIC",
             "Get_accumulate": "RMA_ATOMIC", "Rget_accumulate": "RMA_ATOMIC",
             "Fetch_and_op": "RMA_ATOMIC", "Compare_and_swap": "RMA_ATOMIC"}


def test_otf2_export_has_one_sided_transfers(rma_project, tmp_path):
    """Every data call to a real target is an RmaPut/RmaGet/RmaAtomic of its size,
    completed once; every window is created and destroyed on each rank; Mrecv
    and Imrecv (in the mprobe run) are MPI receives."""
    from hdtrace.export.otf2 import write_otf2
    from hdtrace.view.model import build_timeline
    otf2_print = shutil.which("otf2-print") or "/usr/bin/otf2-print"
    summary = write_otf2(build_timeline(rma_project), rma_project, tmp_path / "archive")
    printed = subprocess.run([otf2_print, summary["anchor"]], capture_output=True, text=True,
                             timeout=120)
    assert printed.returncode == 0, printed.stderr
    events = collections.Counter()
    sizes = collections.defaultdict(list)
    for line in printed.stdout.splitlines():
        match = re.match(r"^(RMA_[A-Z_]+)\s+(\d+)\s+\d+\s*(.*)$", line)
        if match:
            events[match[1]] += 1
            bytes_field = re.search(r"(?:Bytes|Sent): (\d+)", match[3])
            if bytes_field:
                sizes[(int(match[2]), match[1])].append(int(bytes_field[1]))
    want, want_sizes = collections.Counter(), collections.defaultdict(list)
    for trace in sorted(rma_project.trace_dir.glob("*.trc")):
        rank = int(trace.stem.split("_")[-2])
        for element in ElementTree.parse(trace).getroot():
            kind = RMA_KINDS.get(element.tag)
            if kind and element.attrib["targetRank"] != "-2":
                want[kind] += 1
                want_sizes[(rank, kind)].append(int(element.attrib["size"]))
    assert want["RMA_PUT"] and want["RMA_GET"] and want["RMA_ATOMIC"]
    data = sum(want.values())
    assert events == dict(want, RMA_OP_COMPLETE_NON_BLOCKING=data, RMA_WIN_CREATE=4 * 2,
                          RMA_WIN_DESTROY=4 * 2)
    assert dict(sizes) == dict(want_sizes)
    definitions = subprocess.run([otf2_print, "-G", summary["anchor"]], capture_output=True,
                                 text=True, timeout=120).stdout
    assert len(re.findall(r"^RMA_WIN\s", definitions, re.M)) == 4


def test_otf2_export_of_matched_probes(mprobe_project, tmp_path):
    from hdtrace.export.otf2 import write_otf2
    from hdtrace.view.model import build_timeline
    summary = write_otf2(build_timeline(mprobe_project), mprobe_project, tmp_path / "archive")
    # 6 Mrecv and 2 Imrecv per receiving rank (two receiving ranks); each of the
    # 4 ranks' Imrecv of MPI_MESSAGE_NO_PROC posts a request that receives nothing,
    # as an Irecv from MPI_PROC_NULL does.
    assert summary["MPI_RECV"] == 12 and summary["MPI_IRECV"] == 4
    assert summary["MPI_IRECV_REQUEST"] == 4 + 4 and summary["MPI_SEND"] == 16
