"""Every example of the README and the docs' pages runs, so that none can rot.

The ```` ```python ```` blocks of ``README.md`` and of every ``docs/**/*.md`` page run in
order, one namespace per page, on the docs' one example data set: the ``scores/`` Parquet
files that getting-started makes with ``dask-auc-demo --write scores/`` (here 2e4 rows), read
by getting-started's setup block (the one after ``<!-- docs-setup -->``), which every page
starts from.  A block that cannot run here (a cluster's address) follows a
``<!-- skip-test: reason -->`` line.  The API table's signatures are checked here too.
"""

from __future__ import annotations

import inspect
import os
import re
import runpy
from pathlib import Path

import dask
import pytest

import dask_auc
from dask_auc import _demo

ROOT = Path(__file__).resolve().parent.parent
#: the docs build's output folders: CI builds the site while the suite runs, so they are
#: not walked into (a folder the build deletes mid-walk would fail the collection)
_BUILT = {"_build", "generated", "jupyter_execute"}


def _pages(docs: Path) -> list[Path]:
    found = []
    for folder, subfolders, names in os.walk(docs):
        subfolders[:] = [name for name in subfolders if name not in _BUILT]
        found += [Path(folder) / name for name in names if name.endswith(".md")]
    return sorted(found)


PAGES = [ROOT / "README.md"] + _pages(ROOT / "docs")
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
SETUP_MARKER = "<!-- docs-setup -->"
SKIP = re.compile(r"^<!-- skip-test: (?P<reason>\S.*\S) -->$")
ROWS = 20_000


def python_blocks(text: str) -> list[tuple[int, str, str | None, str]]:
    """``(line, code, skip reason or None, the line before the fence)`` of each python block."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            before = next((line.strip() for line in reversed(lines[:i]) if line.strip()), "")
            end = lines.index("```", i + 1)
            skip = SKIP.match(before)
            code = "\n".join(lines[i + 1 : end])
            blocks.append((i + 2, code, skip["reason"] if skip else None, before))
            i = end
        i += 1
    return blocks


def _setup_code() -> str:
    (setup,) = [
        code
        for _, code, _, before in python_blocks(GETTING_STARTED.read_text())
        if before == SETUP_MARKER
    ]
    return setup


@pytest.fixture(scope="module")
def scores_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The docs' data set, as getting-started makes it, on few rows."""
    where = tmp_path_factory.mktemp("docs")
    _demo.main(["--write", str(where / "scores"), "--rows", f"{ROWS:g}"])
    return where


def test_getting_started_makes_the_data_set_the_pages_read():
    text = GETTING_STARTED.read_text()
    assert "dask-auc-demo --write scores/" in text
    assert 'df = dd.read_parquet("scores/")' in _setup_code()


def test_the_data_set_has_the_documented_columns(scores_dir: Path):
    import dask.dataframe as dd

    df = dd.read_parquet(scores_dir / "scores")
    assert list(df.columns) == list(_demo.EXAMPLE_COLUMNS)
    frame = df.compute()
    assert len(frame) == ROWS and df.npartitions >= 2
    assert sorted(frame["label"].unique()) == [0, 1]
    assert sorted(frame["outcome"].unique()) == ["buy", "click", "skip"]
    assert ((frame["outcome"] == "skip") == (frame["label"] == 0)).all()
    proba = frame[["p_buy", "p_click", "p_skip"]]
    assert ((proba >= 0) & (proba <= 1)).all().all()
    assert abs(proba.sum(axis=1) - 1).max() < 1e-12
    assert frame["score"].between(0, 1).all() and (frame["weight"] > 0).all()
    # the same rows for the same arguments
    again = scores_dir / "again"
    _demo.main(["--write", str(again), "--rows", f"{ROWS:g}"])
    assert dd.read_parquet(again).compute().equals(frame)


def test_skipped_blocks_are_few_and_say_why():
    skipped = [
        (page.name, reason)
        for page in PAGES
        for _, _, reason, _ in python_blocks(page.read_text())
        if reason is not None
    ]
    assert len(skipped) <= 3, skipped
    for page in PAGES:
        for line in page.read_text().splitlines():
            if "skip-test" in line:
                assert SKIP.match(line.strip()), (page.name, line)


@pytest.mark.parametrize(
    "page",
    [page for page in PAGES if python_blocks(page.read_text())],
    ids=lambda page: str(page.relative_to(ROOT)),
)
def test_page_examples_run(page: Path, scores_dir: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(scores_dir)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    with dask.config.set(scheduler="threads"):
        exec(compile(_setup_code(), f"{GETTING_STARTED.name}:setup", "exec"), namespace)
        for line, code, reason, _ in python_blocks(page.read_text()):
            if reason is None:
                exec(compile(code, f"{page.relative_to(ROOT)}:{line}", "exec"), namespace)
    plt.close("all")


def _without_annotations(function: object) -> str:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    parameters = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=parameters, return_annotation=signature.empty))


def test_api_table_shows_every_option():
    """autosummary's table once showed ``average_precision_score(y_true, y_score, *)``."""
    pytest.importorskip("sphinx")
    from sphinx.ext import autosummary

    runpy.run_path(str(ROOT / "docs" / "conf.py"))
    for name in dask_auc.__all__:
        function = getattr(dask_auc, name)
        if not inspect.isfunction(function):
            continue
        shown = autosummary.mangle_signature(str(inspect.signature(function)))
        assert shown == _without_annotations(function), name


def test_roc_auc_score_points_to_public_docs():
    """Its docstring once sent readers to ``dask_auc._multiclass``, which is not on the site."""
    assert "dask_auc._" not in (dask_auc.roc_auc_score.__doc__ or "")
    assert ":doc:`/user-guide/multiclass`" in (dask_auc.roc_auc_score.__doc__ or "")
