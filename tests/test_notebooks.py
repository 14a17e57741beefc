"""The notebooks in ``notebooks/`` run top to bottom (their own asserts check dask-auc
against scikit-learn) on a small number of rows, in a kernel of this interpreter."""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.cluster

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ROWS = "2e5"
#: a kernel name of our own, so that a user's registered "python3" (maybe another
#: interpreter, without dask_auc) cannot be picked instead of this one
KERNEL = "dask-auc-tests"


@pytest.fixture
def this_interpreter_kernel(tmp_path, monkeypatch):
    """A kernelspec running ``sys.executable``, found first on ``JUPYTER_PATH``."""
    spec = tmp_path / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"})
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.setenv("DASK_AUC_NOTEBOOK_ROWS", ROWS)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # scikit-learn's OpenMP threads in the kernel spin against the cluster's
    # workers on a small busy machine (training took 20x longer)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return KERNEL


def stored_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def test_the_notebooks_are_stored():
    names = [path.name for path in stored_notebooks()]
    assert names == ["daily_states.ipynb", "quickstart.ipynb", "real_model.ipynb", "training.ipynb"]


@pytest.mark.parametrize("path", stored_notebooks(), ids=lambda path: path.stem)
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


#: the README's test command runs the notebooks once, in the documentation build
#: (.ci/docs.sh executes them and fails on a failing cell), and sets this to skip them here
RUN_BY_DOCS = os.environ.get("DASK_AUC_NOTEBOOKS_IN_DOCS") == "1"


@pytest.mark.skipif(RUN_BY_DOCS, reason="the documentation build runs the notebooks")
@pytest.mark.parametrize("path", stored_notebooks(), ids=lambda path: path.stem)
def test_notebook_runs(path, this_interpreter_kernel):
    notebook = nbformat.read(path, as_version=4)
    # appended here, not stored: which interpreter ran the notebook, and on how many rows
    notebook.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.executable, ROWS)"))
    NotebookClient(
        notebook,
        kernel_name=this_interpreter_kernel,
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    assert notebook.cells[-1].outputs[0].text == f"{sys.executable} {int(float(ROWS))}\n"


def test_click_rows_examples():
    """The examples in the notebooks' data module (outside pytest's doctest paths)."""
    spec = importlib.util.spec_from_file_location("clicks", NOTEBOOKS / "clicks.py")
    clicks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clicks)
    assert doctest.testmod(clicks).failed == 0
