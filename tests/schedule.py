"""The order of the suite's tests: the long ones first, dealt over the workers' parts.

``pytest -n 4 --dist worksteal`` (README's test command) gives each worker one
quarter of the collected tests, in order, and an idle worker then steals the
*last* pending tests of another.  In collection
order (by file name) the long tests -- fresh processes, clusters of their own,
numba compiling -- fall where they fall: one started near the end of a part keeps
a worker busy while the others have nothing left to steal (a ~40 s tail in CI).
:func:`order` puts them at the head of the parts instead, dealt so that the
parts start with about equal long work (longest first, each to the part with
less), the short tests after them, the last ones to run (and to steal) short.
Four workers on two cores: much of the long tests' time is waiting (on a
cluster's processes, a child command, a killed worker's restart), and the other
workers' tests use the core meanwhile (CI's step, the suite beside the docs
build, on an idle machine: 525 s with two workers, 461-499 s with three, 440 s
with four).

:data:`LONG` holds the long tests with their seconds on an idle 2-core machine,
as ``--durations`` measured them in the suite (only their relative size matters).
A key is a node id or a prefix of one: a module's path moves the whole module,
kept together (its module-scoped fixtures, such as a cluster, start once); a
test's name moves every parametrization of it.  A key that matches no collected
test (a test renamed, a ``-k`` selection) moves nothing: this changes the order
only, never what runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Item = TypeVar("Item")

#: node-id prefix -> seconds on an idle 2-core machine (``--durations``, CI's run)
LONG: dict[str, float] = {
    # whole modules: each starts processes or a cluster of its own, shared by its tests
    "tests/test_cli.py": 70.0,  # two runs on the command's own local cluster, subprocesses
    "tests/test_tcp.py": 35.0,  # a scheduler and two workers as separate commands
    "tests/test_demo.py": 20.0,  # the installed demo on its own local cluster
    "tests/test_faults.py": 25.0,  # its own nanny cluster, workers killed and restarted
    # single tests (their module's other tests stay where they are)
    "tests/test_benchmarks.py::test_numba_cost_script_prints_three_runs": 44.0,
    "tests/test_scale.py::test_p2p_": 25.0,  # the two P2P exchanges on the process cluster
    "tests/test_compiled.py::test_grouped_rows_equal_a_row_by_row_reference": 18.0,
    "tests/test_compiled.py::test_the_compiled_pav_gives_the_numpy_blocks_bit_for_bit": 14.0,
    "tests/test_roc.py::test_a_persisted_roc_survives_a_killed_worker": 13.0,
    "tests/test_ties.py::test_tie_group_larger_than_a_workers_memory": 13.0,
    "tests/test_task_keys.py::test_a_held_future_does_not_answer_another_request": 10.0,
    "tests/test_scale.py::test_lazy_graph_of_a_billion_rows": 9.0,
    "tests/test_thresholds.py::test_thousands_of_tiny_partitions_in_one_pass": 9.0,
    "tests/test_weighted_exact.py::test_the_command_line_threshold_at_tpr_one": 8.0,
    "tests/test_heavy_groups.py::test_a_heavy_user_on_a_memory_limited_process_cluster": 8.0,
    "tests/test_compiled.py::test_a_first_call_takes_the_numpy_path_while_the_loops_compile": 6.0,
}


def _key(nodeid: str) -> str | None:
    """The longest :data:`LONG` key that ``nodeid`` starts with, or None."""
    found = [key for key in LONG if nodeid.startswith(key)]
    return max(found, key=len) if found else None


def order(items: Sequence[Item], nodeids: Sequence[str], parts: int = 2) -> list[Item]:
    """``items`` (whose node ids are ``nodeids``) reordered: the long ones at the parts' heads.

    Each part gets ``len(items) // parts`` items (the last the rest), as xdist's
    work-stealing scheduler deals them; the long groups go, longest first, to the
    part with the least long seconds so far that still has room; every other
    item keeps its order, filling the parts after their long groups.

    >>> ids = ["a", "tests/test_demo.py::t", "b", "c", "tests/test_cli.py::u", "d"]
    >>> order(ids, ids)
    ['tests/test_cli.py::u', 'a', 'b', 'tests/test_demo.py::t', 'c', 'd']
    """
    if len(items) != len(nodeids):
        raise ValueError(f"{len(items)} items but {len(nodeids)} node ids")
    groups: dict[str, list[Item]] = {}
    rest: list[Item] = []
    for item, nodeid in zip(items, nodeids, strict=True):
        key = _key(nodeid)
        if key is None:
            rest.append(item)
        else:
            groups.setdefault(key, []).append(item)
    sizes = [len(items) // parts] * (parts - 1)
    sizes.append(len(items) - sum(sizes))
    heads: list[list[Item]] = [[] for _ in range(parts)]
    seconds = [0.0] * parts
    for key in sorted(groups, key=lambda k: -LONG[k]):
        room = [h for h in range(parts) if len(heads[h]) + len(groups[key]) <= sizes[h]]
        part = min(room or range(parts), key=lambda h: (seconds[h], h))
        heads[part].extend(groups[key])
        seconds[part] += LONG[key]
    ordered: list[Item] = []
    for part in range(parts):
        ordered.extend(heads[part])
        take = max(0, sizes[part] - len(heads[part])) if part < parts - 1 else len(rest)
        ordered.extend(rest[:take])
        del rest[:take]
    return ordered
