"""The rules that keep the house (issue 30), checked on the package's own source.

Each module of ``dask_auc`` is found with :mod:`pkgutil` and read with
:mod:`ast` (every import statement, at module level or inside a
function), so a new module is covered the day it is added:

* no module over 500 lines: a split goes by job;
* kernels (``dask_auc._kernels``) import no dask or distributed;
* a kernel family imports only the core, the sort and itself; the sort only
  the core and itself; the core only itself;
* no import circle among the package's modules;
* faces (the modules outside ``_engine``, ``_kernels`` and ``_roc``) enter the
  engine and the binary wing through their doors (the packages' ``__init__``);
* one builder per sort kind: the engine's sort (``SortedGraph``) is built
  only at the sites of :data:`SORT_BUILDERS`, one per kind of sort;
* every public metric function has an entry in ``metric_registry.REGISTRY``,
  and every entry names a public function (``test_registry.py`` holds the
  binary wing's registry to its entries).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pkgutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

MAX_LINES = 500
KERNELS = "dask_auc._kernels"
#: the kernel stages and what each may import from the package (besides itself)
KERNEL_FAMILIES = ("binary", "replicates", "columns", "per_row", "groups", "states")
KERNEL_IMPORTS = {
    f"{KERNELS}.core": (),
    f"{KERNELS}.sort": (f"{KERNELS}.core",),
    **{f"{KERNELS}.{f}": (f"{KERNELS}.core", f"{KERNELS}.sort") for f in KERNEL_FAMILIES},
}
#: packages whose modules faces must not import: they enter by the package's ``__init__``
DOORS = ("dask_auc._engine", "dask_auc._roc")
NOT_FACES = (*DOORS, KERNELS)


@dataclass(frozen=True)
class Import:
    """One import statement's target module, and its line."""

    target: str
    line: int


@cache
def modules() -> dict[str, Path]:
    """Every module of ``dask_auc`` (packages by their ``__init__.py``), by dotted name.

    :func:`pkgutil.iter_modules` folder by folder, as :func:`pkgutil.walk_packages`
    walks but without importing each package: the rules are read even when the
    package does not import.
    """
    spec = importlib.util.find_spec("dask_auc")
    assert spec is not None and spec.origin is not None
    found = {"dask_auc": Path(spec.origin)}

    def walk(folder: Path, prefix: str) -> None:
        for info in pkgutil.iter_modules([str(folder)], prefix):
            leaf = info.name.rpartition(".")[2]
            if info.ispkg:
                found[info.name] = folder / leaf / "__init__.py"
                walk(folder / leaf, info.name + ".")
            else:
                found[info.name] = folder / f"{leaf}.py"

    walk(Path(spec.origin).parent, "dask_auc.")
    return found


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def within(name: str, package: str) -> bool:
    """Whether module ``name`` is ``package`` or one of its modules."""
    return name == package or name.startswith(package + ".")


@cache
def imports(name: str) -> tuple[Import, ...]:
    """The modules ``name`` imports, resolved to dotted names; names imported from a
    package that are its modules count as imports of those modules too."""
    tree = ast.parse(modules()[name].read_text(), filename=str(modules()[name]))
    found = []
    for node in ast.walk(tree):  # every statement, at module level or in a function
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name if is_package(name) else name.rpartition(".")[0]
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.append(Import(target, node.lineno))
            found += [
                Import(f"{target}.{alias.name}", node.lineno)
                for alias in node.names
                if f"{target}.{alias.name}" in modules()
            ]
    return tuple(found)


def package_imports(name: str) -> list[Import]:
    """The imports of ``name`` that are modules of dask_auc (the nearest enclosing module)."""
    resolved = []
    for imp in imports(name):
        target = imp.target
        while target and target not in modules():
            target = target.rpartition(".")[0]
        if target:
            resolved.append(Import(target, imp.line))
    return resolved


def where(name: str, imp: Import) -> str:
    return f"{name} (line {imp.line}) imports {imp.target}"


def test_the_walk_finds_the_house():
    names = modules()
    assert {"dask_auc._kernels.core.summary", "dask_auc._engine"} <= set(names)
    assert all(path.is_file() for path in names.values())


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_module_is_over_500_lines(name):
    lines = len(modules()[name].read_text().splitlines())
    assert lines <= MAX_LINES, (
        f"{name} has {lines} lines: rule 'no module over {MAX_LINES} lines' "
        "(split it by job, never into 'part 2')"
    )


KERNEL_MODULES = sorted(n for n in modules() if within(n, KERNELS))


@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_kernels_import_no_dask(name):
    offending = [
        where(name, imp)
        for imp in imports(name)
        if imp.target.partition(".")[0] in ("dask", "distributed")
    ]
    assert not offending, (
        "rule 'kernels import no dask or distributed' (pure NumPy, tested with no scheduler): "
        + "; ".join(offending)
    )


@pytest.mark.parametrize("name", KERNEL_MODULES)
def test_kernel_stages_import_only_the_stages_below(name):
    stage = next((s for s in KERNEL_IMPORTS if within(name, s)), KERNELS)
    allowed = (stage, *KERNEL_IMPORTS.get(stage, ()))
    offending = [
        where(name, imp)
        for imp in package_imports(name)
        if not any(within(imp.target, a) for a in allowed)
    ]
    assert not offending, (
        f"rule 'a kernel stage imports only itself and {KERNEL_IMPORTS.get(stage, ())}' "
        "(families: core and sort; sort: core; core: itself): " + "; ".join(offending)
    )


def test_every_kernel_family_is_a_known_stage():
    stages = {n for n in KERNEL_MODULES if n.count(".") == 2 and is_package(n)}
    assert stages == set(KERNEL_IMPORTS), (
        f"rule 'kernels by stage': packages of {KERNELS} {sorted(stages)} are not the stages "
        f"this test knows {sorted(KERNEL_IMPORTS)}: add the new one to KERNEL_IMPORTS"
    )


def find_circle(graph: dict[str, list[str]]) -> list[str] | None:
    """A path ``a -> ... -> a`` in ``graph``, or None (depth-first search, three colours)."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (circle := visit(nxt)):
                return circle
        state[node] = "done"
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (circle := visit(node)):
            return circle
    return None


def test_find_circle_finds_one():
    assert find_circle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == ["a", "b", "c", "a"]
    assert find_circle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


def test_no_import_circle():
    graph = {
        name: sorted({imp.target for imp in package_imports(name) if imp.target != name})
        for name in modules()
    }
    circle = find_circle(graph)
    assert circle is None, (
        "rule 'no import circle' (module-level and function-level imports): "
        + " -> ".join(circle or [])
    )


FACES = sorted(n for n in modules() if not any(within(n, p) for p in NOT_FACES))


@pytest.mark.parametrize("name", FACES)
def test_faces_enter_the_engine_and_the_binary_wing_by_their_doors(name):
    offending = [
        where(name, imp)
        for imp in package_imports(name)
        if any(within(imp.target, door) and imp.target != door for door in DOORS)
    ]
    assert not offending, (
        f"rule 'faces import {' and '.join(DOORS)} only through their __init__': "
        + "; ".join(offending)
    )


#: where the engine's sort is built, by module: one site per kind of sort (a new kind of sort
#: is a new site here, deliberately; a second copy of a kind's recipe fails)
SORT_BUILDERS = {
    "dask_auc._roc.sort": 1,  # one binary input, the positive class chosen after the sort
    "dask_auc._roc.replicates": 1,  # the bootstrap's rows, each with its key
    "dask_auc._roc.delong": 1,  # DeLong's paired test: each model's rows with their ids
    "dask_auc._multiclass": 2,  # one column per class; the micro average's indicator rows
    "dask_auc._multilabel": 1,  # one indicator column, or the micro/samples rows
}


def sort_builders(name: str) -> int:
    tree = ast.parse(modules()[name].read_text(), filename=str(modules()[name]))
    return sum(
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "SortedGraph"
        for node in ast.walk(tree)
    )


def test_one_builder_per_sort_kind():
    found = {name: n for name in modules() if (n := sort_builders(name))}
    assert found == SORT_BUILDERS, (
        "rule 'one builder per sort kind': SortedGraph is built at "
        f"{found}, expected {SORT_BUILDERS} (build a known kind's sort with its builder)"
    )


#: public functions of ``__all__`` that are not metrics of labels and scores, so have no
#: registry entry (classes, results and warnings are not functions, and are left out anyway)
NOT_METRICS = {
    "roc",  # builds the ROC object; its queries are registered ("-persisted-roc" entries)
    "compute",  # computes several lazy results at once
    # a table of registered metrics (and delong_test/bootstrap_test) of several models, in one
    # compute; tests/test_compare.py holds it to scikit-learn and DeLong's reference
    "compare",
    "auc",  # the trapezoid area under given curve points (x, y), not labels and scores
    "bootstrap_counts",  # the bootstrap's replicate counts, a tool behind bootstrap_ci
    "confusion_metric",  # declares a metric of confusion counts for metric_at_thresholds
    "merge_adjacent",  # merges PartialROC summaries (the summaries' monoid)
    "get_scorer",  # scorers for model selection: they call registered metrics (test_scorers.py)
    "make_scorer",
    "plot_det",  # plotting: Display-like views of registered curves
    "plot_gains",
    "plot_precision_recall",
    "plot_reliability",  # draws reliability_diagram's registered query
    "plot_roc",
    # two computes (one pass, then the rows of its widest bins): no lazy result to run through
    # the registry's tests; tests/test_states.py holds it to the exact AUC on every layout
    "roc_auc_bounds",
    # takes a trained model and its features, not labels and scores: it predicts each iteration
    # asked and asks roc_auc_score (registered) of each; tests/test_training.py holds it to
    # roc_auc_score of the library's own predictions
    "roc_auc_by_iteration",
}


def public_functions() -> set[str]:
    import dask_auc  # here, not at the top: the other rules read files, and run without it

    return {name for name in dask_auc.__all__ if inspect.isfunction(getattr(dask_auc, name))}


def registered_functions() -> dict[str, str]:
    """The public function of each registry entry: entries are named ``function[-variant]``."""
    from metric_registry import REGISTRY

    return {name: name.partition("-")[0] for name in REGISTRY}


def test_every_public_metric_has_a_registry_entry():
    assert NOT_METRICS <= public_functions(), (
        f"rule 'every public metric is registered': NOT_METRICS names "
        f"{sorted(NOT_METRICS - public_functions())}, which are not public functions"
    )
    missing = public_functions() - NOT_METRICS - set(registered_functions().values())
    assert not missing, (
        f"rule 'every public metric has an entry in tests/metric_registry.py': "
        f"dask_auc.{', dask_auc.'.join(sorted(missing))} has none (or add it to NOT_METRICS, "
        "saying why it is not a metric)"
    )


def test_every_registry_entry_names_a_public_function():
    unknown = {
        entry: function
        for entry, function in registered_functions().items()
        if function not in public_functions() or function in NOT_METRICS
    }
    assert not unknown, (
        "rule 'every registry entry names a public metric function' (entries are "
        f"named 'function[-variant]'): {unknown}"
    )
