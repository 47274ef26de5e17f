"""What the HDF5 layer remembers between transfers follows every change
(programs/hdf5_answers.c): the program changes a transfer's dataspace
selections and extents, its memory type's size and its transfer list's mode
in each way HDF5's API allows, between writes that use the same ids, and
closes the library so that HDF5 gives an id again; after each change, the
layer's H5Dwrite has the bytes, memory type size and mode HDF5 itself gave
the program at that moment, linked and preloaded."""
import pytest

from hdf5_programs import RANKS, run_program, said, traces

PROGRAM = "hdf5_answers"
COMPARED = ("size", "memTypeSize", "transfer")


@pytest.mark.parametrize("how", ["linked", "preloaded"])
def test_every_write_has_what_hdf5_said_after_each_change(runner, how):
    run = run_program(runner, PROGRAM, how)
    lines = run.result.stdout.splitlines()
    for rank in range(RANKS):
        # Without an id given again, the test of H5close would show nothing.
        assert f"r{rank} id-again yes" in lines, \
            f"HDF5 gave no dataspace the id of one before H5close: {run.result.stdout}"
        _, layer, _ = traces(run, rank)
        expected = said(run, rank)
        writes = [element for element in layer.root if element.tag == "H5Dwrite"]
        assert len(writes) == len(expected), (layer.path, len(writes), len(expected))
        # Each change shows: no two neighbours of the program's lines alike
        # except the first pair (the same write twice, remembered).
        changes = sum(1 for before, after in zip(expected, expected[1:]) if before != after)
        assert changes == len(expected) - 2, expected
        for index, (element, (_, values)) in enumerate(zip(writes, expected)):
            at = f"{layer.path} H5Dwrite #{index}"
            assert "error" not in element.attrib, at
            for key in COMPARED:
                assert element.attrib[key] == values[key], (at, key, element.attrib, values)
