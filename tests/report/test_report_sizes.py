"""The most common sizes (report/sizes.py) against a plain count of every
(group, size) pair: the order (most frequent first, ties smaller first),
the four kept per group, and sizes too far apart to be one number with
their group."""
import collections

import numpy as np
import pytest

from hdtrace.report.sizes import common_sizes, common_sizes_by_group


def counted(groups, sizes, count, most=4):
    pairs = collections.Counter(zip(groups, sizes))
    found = [[] for _ in range(count)]
    for (group, size), times in sorted(pairs.items(), key=lambda item: (item[0][0], -item[1],
                                                                       item[0][1])):
        if len(found[group]) < most:
            found[group].append((size, times))
    return found


@pytest.mark.parametrize("largest", [1 << 20, 1 << 61, (1 << 63) - 1])
def test_by_group_as_counted(largest):
    generator = np.random.default_rng(7)
    count = 5
    groups = generator.integers(0, count - 1, 20000)  # the last group has no rows
    # Few distinct sizes, many ties, and some far apart.
    sizes = generator.choice(np.array([0, 1, 16, 4096, 65536, largest, largest - 1], np.int64),
                             20000, p=[0.1, 0.2, 0.2, 0.2, 0.1, 0.1, 0.1])
    found = common_sizes_by_group(groups, sizes, count)
    assert found == counted(groups.tolist(), sizes.tolist(), count)
    assert found[count - 1] == []
    assert all(len(entry) == 4 for entry in found[:count - 1])


def test_ties_smaller_first_and_fewer_than_four():
    assert common_sizes(np.array([8, 4, 8, 4, 2], np.int64)) == [(4, 2), (8, 2), (2, 1)]
    assert common_sizes(np.array([], np.int64)) == []
    assert common_sizes_by_group(np.array([1, 1, 0]), np.array([5, 5, 7]), 3) == \
        [[(7, 1)], [(5, 2)], []]
