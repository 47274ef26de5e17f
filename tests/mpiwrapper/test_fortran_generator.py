"""scripts/generate-fortran-wrappers.py: what it writes, and how it refuses.

The rules go by C parameter type (mpiwrapper/fortran_conf.py). A parameter
type without a rule, an array whose length is unknown, or an entry that
replaces the library call fails the generation with a message naming
function and parameter, and writes nothing.
"""
import pathlib
import re
import runpy
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
GENERATOR = REPO / "scripts" / "generate-fortran-wrappers.py"
FORTRAN_CONF = REPO / "mpiwrapper" / "fortran_conf.py"
KINDS = """
KINDS = {'int': ('static_cast<int64_t>({0})', 'after'), 'comm': ('call.commId({0})', 'after'),
         'commBefore': ('call.commId({0})', 'before')}
"""


def generate(tmp_path, prototypes, functions, fortran_conf=FORTRAN_CONF):
    (tmp_path / "functions.h").write_text(prototypes)
    (tmp_path / "conf.py").write_text(KINDS + "FUNCTIONS = " + functions + "\n")
    output = tmp_path / "out.cpp"
    result = subprocess.run(["/usr/bin/python3", str(GENERATOR), str(tmp_path / "functions.h"),
                             str(tmp_path / "conf.py"), str(fortran_conf), str(output)],
                            capture_output=True, text=True)
    return result, output


def test_real_inputs_bind_every_function_but_the_listed_ones(tmp_path):
    output = tmp_path / "out.cpp"
    result = subprocess.run(["/usr/bin/python3", str(GENERATOR),
                             str(REPO / "mpiwrapper" / "functions.h"),
                             str(REPO / "mpiwrapper" / "wrapper_conf.py"), str(FORTRAN_CONF),
                             str(output)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    text = output.read_text()
    prototypes = re.findall(r"^int (MPI_\w+)\(", (REPO / "mpiwrapper" / "functions.h").read_text(),
                            re.M)
    unbound = set(re.findall(r"^// (MPI_\w+): ", text, re.M))
    listed = set(runpy.run_path(str(FORTRAN_CONF))["NO_FORTRAN"])
    assert unbound == (listed & set(prototypes)) | {p for p in prototypes if p.endswith("_c")}
    for function in prototypes:
        if function in unbound:
            continue
        lower = function.lower()
        for name in (f"{lower}_", f"{lower}__", lower, function.upper(),
                     f"ompi_{lower[4:]}_f"):
            assert re.search(rf"\bvoid {name}\(", text), f"{function}: no {name}"


def test_entry_converts_by_type(tmp_path):
    result, output = generate(
        tmp_path,
        "int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);\n"
        "int MPI_File_delete(const char *filename, MPI_Info info);\n",
        "{'MPI_Comm_dup': dict(tag='Comm_dup', attrs=[('cid', 'comm', 'comm'), "
        "('newCid', 'comm', '*newcomm')]),"
        " 'MPI_File_delete': dict(tag='File_delete', attrs=[('n', 'int', 'filename[0]')])}")
    assert result.returncode == 0, result.stderr
    text = output.read_text()
    assert "const MPI_Comm comm = MPI_Comm_f2c(*comm_f);" in text
    # an output handle is converted after the call
    dup = text[text.index("void mpi_comm_dup_("):]
    assert dup.index("pmpi_comm_dup_(comm_f, newcomm_f, ierr);") < dup.index(
        "MPI_Comm newcomm_value = MPI_Comm_f2c(*newcomm_f);")
    # CHARACTER: the hidden length comes after IERROR
    assert re.search(r"void mpi_file_delete_\(char \*filename_f, MPI_Fint \*info_f, "
                     r"MPI_Fint \*ierr, size_t filename_length\)", text)


@pytest.mark.parametrize("prototype,message", [
    ("int MPI_Weird(MPI_Comm comm, struct foo *thing);",
     'MPI_Weird: parameter "struct foo *thing": no Fortran rule'),
    ("int MPI_Weird(MPI_Comm comm, MPI_Unknown handle);",
     'MPI_Weird: parameter "MPI_Unknown handle": no Fortran rule'),
    ("int MPI_Weird(MPI_Comm comm, int **pp);",
     'MPI_Weird: parameter "int **pp": no Fortran rule for the type "int **"'),
    ("int MPI_Weird(MPI_Comm comm, char *names[]);",
     'MPI_Weird: parameter "char *names[]": no Fortran rule for the type "char *[]"'),
])
def test_unknown_parameter_type_fails_naming_function_and_parameter(tmp_path, prototype,
                                                                     message):
    result, output = generate(tmp_path, prototype + "\n",
                              "{'MPI_Weird': dict(tag='Weird', attrs=[('cid', 'comm', 'comm')])}")
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert not output.exists()


def test_listed_function_is_skipped_with_its_reason(tmp_path):
    conf = tmp_path / "fortran_conf.py"
    conf.write_text(FORTRAN_CONF.read_text() + "\nNO_FORTRAN['MPI_Weird'] = 'a test reason'\n")
    result, output = generate(tmp_path, "int MPI_Weird(MPI_Comm comm, struct foo *thing);\n",
                              "{'MPI_Weird': dict(tag='Weird', attrs=[('cid', 'comm', 'comm')])}",
                              fortran_conf=conf)
    assert result.returncode == 0, result.stderr
    assert "// MPI_Weird: a test reason" in output.read_text()


def test_array_without_known_length_fails(tmp_path):
    result, output = generate(
        tmp_path, "int MPI_Weird(int n, MPI_Comm comms[]);\n",
        "{'MPI_Weird': dict(tag='Weird', attrs=[('cid', 'comm', 'comms[0]')])}")
    assert result.returncode != 0
    assert 'MPI_Weird: the hooks read the array parameter "comms"' in result.stderr
    assert not output.exists()


def test_replaced_library_call_fails(tmp_path):
    result, output = generate(
        tmp_path, "int MPI_Weird(int depth);\n",
        "{'MPI_Weird': dict(tag='Weird', attrs=[('depth', 'int', 'depth')], call='hdtracempi::testNestedBody(depth)')}")
    assert result.returncode != 0
    assert "MPI_Weird: its entry replaces the library call" in result.stderr


def test_mpich_f08_entries_only_without_a_choice_buffer(tmp_path):
    """MPICH writes mpi_f08 procedures with a choice buffer in C (they call the
    C MPI_ function), the others in Fortran (they call PMPI_)."""
    result, output = generate(
        tmp_path,
        "int MPI_Barrier(MPI_Comm comm);\n"
        "int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);\n"
        "int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, "
        "void *baseptr, MPI_Win *win);\n",
        "{'MPI_Barrier': dict(tag='Barrier', attrs=[('cid', 'comm', 'comm')]),"
        " 'MPI_Bcast': dict(tag='Bcast', attrs=[('cid', 'comm', 'comm')]),"
        " 'MPI_Win_allocate': dict(tag='Win_allocate', attrs=[('cid', 'comm', 'comm')])}")
    assert result.returncode == 0, result.stderr
    f08 = output.read_text().split("#else")[1]
    assert "void mpi_barrier_f08_(" in f08 and "pmpir_barrier_f08_(" in f08
    assert "void mpi_win_allocate_f08_(" in f08
    assert "bcast" not in f08
