"""`hdtrace check` (python/hdtrace/check.py): a project that the PIOsim
tools load passes; each failure, written by hand in the old forms, is named
with its file, line and problem, and the exit status is 1."""
import os
import subprocess

import pytest

PROJECT = """<?xml version="1.0" encoding="UTF-8"?>
<Application name='app'>
<Description></Description>
<FileList>
<File name='data.bin'>
  <InitialSize>0</InitialSize>
  <Distribution implementation='de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe'><ChunkSize>64K</ChunkSize></Distribution>
</File>
</FileList>
<Topology>
<Level type='Hostname'><Level type='Rank'><Level type='Thread'></Level></Level></Level>
<Node name='node01'>
  <Node name='0'><Node name='0'/></Node>
  <Node name='1'><Node name='0'/></Node>
</Node>
</Topology>
<CommunicatorList>
<Communicator name='WORLD'><Rank global='0' local='0' cid='0'/><Rank global='1' local='1' cid='0'/></Communicator>
<Communicator name='SELF 0'><Rank global='0' local='0' cid='1'/></Communicator>
<Communicator name='SELF 1'><Rank global='1' local='0' cid='1'/></Communicator>
</CommunicatorList>
<Datatypes>
<Rank name='0'>
  <NAMED id='1' name='MPI_BYTE'/>
  <NAMED id='7' name='MPI_INT'/>
  <CONTIGUOUS id='8' name='MPI_UNSIGNED' count='4' oldType='1'/>
  <STRUCT id='20' name='' count='2'>
    <Type id='1' displacement='0' blocklen='2'/>
    <Type id='1' displacement='4' blocklen='4'/>
  </STRUCT>
  <VECTOR id='16777216' name='' count='2' blocklength='1' stride='3' oldType='7'/>
</Rank>
<Rank name='1'>
  <NAMED id='7' name='MPI_INT'/>
</Rank>
</Datatypes>
</Application>
"""

TRACE_0 = """<?xml version="1.0" encoding="UTF-8"?>
<Program timeAdjustment='1700000000'>
<Init time='0.000001000' end='0.000002500'/>
<Isend size='4' count='1' tid='7' toRank='1' toTag='6' cid='0' rid='0' time='0.200000000' end='0.200000100'/>
<Wait time='0.400000000' end='0.400001000'>
  <For rid='0'/>
</Wait>
<Gather size='4' recvSize='4' root='1' rootRank='1' cid='0' count='1' tid='7' recvCount='1' recvtid='7' time='0.410000000' end='0.420000000'/>
<File_open cid='0' name='data.bin' flags='37' fid='0' time='0.500000000' end='0.500100000'/>
<File_write_at fid='0' offset='0' size='16' count='4' tid='8' time='0.600000000' end='0.600200000'/>
<File_close fid='0' time='0.800000000' end='0.800000010'/>
<Finalize time='1.000000000' end='1.000000001'/>
</Program>
"""

TRACE_1 = """<?xml version="1.0" encoding="UTF-8"?>
<Program timeAdjustment='1700000000'>
<Init time='0.000001000' end='0.000002500'/>
<Irecv fromRank='0' fromTag='6' cid='0' rid='0' time='0.200000000' end='0.200000100'/>
<Waitall time='0.300000000' end='0.400000000'>
  <For rid='0'/>
</Waitall>
<Gather size='4' recvSize='4' root='1' rootRank='1' cid='0' count='1' tid='7' recvCount='1' recvtid='7' time='0.410000000' end='0.420000000'/>
<Finalize time='1.000000000' end='1.000000001'/>
</Program>
"""

FILES = {"app.proj": PROJECT, "app_node01_0_0.trc": TRACE_0, "app_node01_1_0.trc": TRACE_1}


def write_run(directory, changes=()):
    """The good run, with (file, old text, new text) replacements."""
    texts = dict(FILES)
    for name, old, new in changes:
        assert old in texts[name], (name, old)
        texts[name] = texts[name].replace(old, new, 1)
    for name, text in texts.items():
        (directory / name).write_text(text)
    return directory / "app.proj", texts


def line_of(text, fragment):
    return text[:text.index(fragment)].count("\n") + 1


def run_check(build_dir, project):
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "check", str(project)],
                          env=env, capture_output=True, text=True, timeout=60)


def test_a_run_the_tools_load_passes(build_dir, tmp_path):
    project, _ = write_run(tmp_path)
    result = run_check(build_dir, project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 trace(s) pass" in result.stdout


# (name, file, old, new, fragment locating the reported line, words of the problem)
FAILURES = [
    ("named type unknown to the tools", "app.proj",
     "<CONTIGUOUS id='8' name='MPI_UNSIGNED' count='4' oldType='1'/>",
     "<NAMED id='8' name='MPI_UNSIGNED'/>", "name='MPI_UNSIGNED'",
     ["MPI_UNSIGNED", "do not know", "merge the run again"]),
    ("SELF repeated", "app.proj",
     "'SELF 0'><Rank global='0' local='0' cid='1'/></Communicator>\n<Communicator name='SELF 1'>",
     "'SELF'><Rank global='0' local='0' cid='1'/></Communicator>\n<Communicator name='SELF'>",
     ("last", "<Communicator name='SELF'>"),
     ["'SELF'", "repeats", "SELF <rank>", "merge the run again"]),
    ("Gather without rootRank", "app_node01_1_0.trc",
     "root='1' rootRank='1'", "root='1'", "<Gather", ["<Gather>", "no rootRank",
                                                      "trace the program again"]),
    ("negative Init time", "app_node01_0_0.trc",
     "<Init time='0.000001000'", "<Init time='-0.000001000'", "<Init",
     ["<Init>", "negative", "trace the program again"]),
    ("undefined cid", "app_node01_1_0.trc", "<Irecv fromRank='0' fromTag='6' cid='0'",
     "<Irecv fromRank='0' fromTag='6' cid='5'", "<Irecv", ["cid='5'", "CommunicatorList"]),
    ("undefined tid", "app_node01_1_0.trc", "count='1' tid='7' recvCount",
     "count='1' tid='8' recvCount", "<Gather", ["tid='8'", "rank 1", "Datatypes"]),
    ("undefined fid", "app_node01_0_0.trc", "<File_write_at fid='0'",
     "<File_write_at fid='3'", "<File_write_at", ["fid='3'", "File_open"]),
    ("For of a request never issued", "app_node01_0_0.trc", "<For rid='0'/>",
     "<For rid='9'/>", "<For", ["rid='9'", "issued"]),
    ("type referencing an undefined type", "app.proj", "oldType='7'/>", "oldType='99'/>",
     "oldType='99'", ["oldType='99'", "not defined before"]),
    ("datatype element the tools refuse", "app.proj",
     "<VECTOR id='16777216' name='' count='2' blocklength='1' stride='3' oldType='7'/>",
     "<RESIZED id='16777216' name='' lowerBound='0' extend='16' oldType='7'/>", "<RESIZED",
     ["<RESIZED id='16777216'>", "refuses the whole project", "merge the run again"]),
    ("datatype element the tools read as a placeholder", "app.proj",
     "<VECTOR id='16777216' name='' count='2' blocklength='1' stride='3' oldType='7'/>",
     "<HVECTOR id='16777216' name='' count='2' blocklength='1' stride='12' oldType='7'/>",
     "<HVECTOR", ["<HVECTOR id='16777216'>", "placeholder of size 0", "merge the run again"]),
    ("displacement beyond the tools' 32-bit integers", "app.proj",
     "<Type id='1' displacement='4' blocklen='4'/>",
     "<Type id='1' displacement='4294967296' blocklen='4'/>", "displacement='4294967296'",
     ["displacement='4294967296'", "<STRUCT>", "32-bit"]),
]


@pytest.mark.parametrize("failure", FAILURES, ids=[failure[0] for failure in FAILURES])
def test_each_failure_names_file_line_and_problem(build_dir, tmp_path, failure):
    _name, file, old, new, fragment, words = failure
    project, texts = write_run(tmp_path, [(file, old, new)])
    result = run_check(build_dir, project)
    assert result.returncode == 1, result.stdout + result.stderr
    problems = [line for line in result.stdout.splitlines() if not line.startswith("hdtrace")]
    assert len(problems) == 1, result.stdout
    if isinstance(fragment, tuple):  # the last of repeated names
        line = texts[file].count("\n", 0, texts[file].rindex(fragment[1])) + 1
    else:
        line = line_of(texts[file], fragment)
    assert problems[0].startswith(f"{tmp_path / file}:{line}: "), (problems[0], line)
    for word in words:
        assert word in problems[0], (word, problems[0])
    assert "1 problem(s)" in result.stdout


def test_the_original_implementations_traces_say_what_to_do(build_dir, fixtures_dir):
    project = fixtures_dir / "original-traces" / "partdiff" / "partdiff-par.proj"
    result = run_check(build_dir, project)
    assert result.returncode == 1, result.stdout + result.stderr
    text = (project.parent / "partdiff-par_node05_0_0.trc").read_text()
    gather = line_of(text, "<Gather ")
    assert (f"{project.parent / 'partdiff-par_node05_0_0.trc'}:{gather}: <Gather> has no "
            "rootRank") in result.stdout
    assert "trace the program again" in result.stdout


def test_a_trace_cut_short_is_named(build_dir, tmp_path):
    project, texts = write_run(tmp_path)
    trace = tmp_path / "app_node01_1_0.trc"
    trace.write_text(texts["app_node01_1_0.trc"][:texts["app_node01_1_0.trc"].index("<Waitall")])
    result = run_check(build_dir, project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{trace}:" in result.stdout and "not well-formed XML" in result.stdout, result.stdout


def test_a_damaged_project_is_named_without_reading_the_traces(build_dir, tmp_path):
    project, texts = write_run(tmp_path)
    project.write_text(texts["app.proj"][:texts["app.proj"].index("<Datatypes>")])
    result = run_check(build_dir, project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith(f"{project}:") and "not well-formed XML" in result.stdout


def test_a_repeated_problem_is_listed_three_times_then_counted(build_dir, tmp_path):
    gather = ("<Gather size='4' recvSize='4' root='1' rootRank='1' cid='0' count='1' tid='7' "
              "recvCount='1' recvtid='7' time='0.410000000' end='0.420000000'/>\n")
    broken = gather.replace(" rootRank='1'", "")
    project, texts = write_run(tmp_path, [("app_node01_0_0.trc", gather, broken * 10)])
    trace = tmp_path / "app_node01_0_0.trc"
    first = line_of(texts["app_node01_0_0.trc"], "<Gather ")
    result = run_check(build_dir, project)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines[:3]] == [
        f"{trace}:{first + index}" for index in range(3)]
    assert all("<Gather> has no rootRank" in line for line in lines[:3])
    assert lines[3] == (f"{trace}: the same problem on 7 more line(s), the last at line "
                        f"{first + 9} (--all lists each)")
    assert lines[4:] == [f"hdtrace check: 10 problem(s): the PIOsim tools would fail on {project}"]
    every = subprocess.run(
        ["/usr/bin/python3", "-m", "hdtrace", "check", "--all", str(project)],
        env=dict(os.environ, PYTHONPATH=str(build_dir / "python")), capture_output=True,
        text=True, timeout=60)
    listed = every.stdout.splitlines()
    assert every.returncode == 1 and len(listed) == 11, every.stdout
    assert [line.split(": ", 1)[0] for line in listed[:10]] == [
        f"{trace}:{first + index}" for index in range(10)]
