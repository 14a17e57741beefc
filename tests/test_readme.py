"""The README is a front door that stays true: its links resolve, and its one benchmark
table holds only numbers of the results file it cites, measured by the command beside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _table_rows(text: str) -> dict[str, list[str]]:
    """First cell -> the other cells, for every body row of the Markdown tables in text."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-: "):
            rows[cells[0]] = cells[1:]
    return rows


def test_relative_links_resolve():
    links = re.findall(r"\]\(([^)]+)\)", README)
    assert links
    for link in links:
        if link.startswith(("http://", "https://", "#")):
            continue
        assert (ROOT / link.split("#")[0]).exists(), link


def test_benchmark_numbers_are_the_cited_results_files():
    section = _section(README, "Benchmark")
    (cited,) = re.findall(r"\]\((benchmarks/results/[^)]+\.md)\)", section)
    results = (ROOT / cited).read_text()
    # the command beside the table is the one the results file shows for it
    (command,) = re.findall(r"^python benchmarks/\S+\.py .*$", section, flags=re.MULTILINE)
    assert f"$ {command}\n" in results
    readme_rows = _table_rows(section)
    results_rows = _table_rows(results)
    assert readme_rows.pop("measurement") == ["numba on: s", "x AUC", "numba off: s", "x AUC"]
    assert results_rows["measurement"][:2] == ["numba on: s", "x AUC"]
    assert results_rows["measurement"][3:5] == ["numba off: s", "x AUC"]
    assert len(readme_rows) >= 5
    for name, cells in readme_rows.items():
        # the results file's columns: on s, x AUC, peak, off s, x AUC, peak
        source = results_rows[name]
        assert cells == [source[0], source[1], source[3], source[4]], name


def test_test_command_builds_the_docs():
    block = README.split("<!-- test-command -->", 1)[1].split("```", 2)[1]
    assert "bash .ci/docs.sh .venv/bin/python" in block


def test_getting_started_gives_the_same_test_command_and_times():
    """One suite time: the docs' copy of the test command is the README's, word for word."""
    getting_started = (ROOT / "docs" / "getting-started.md").read_text()

    def command(text: str) -> str:
        return text.split("<!-- test-command -->", 1)[1].split("```", 2)[1]

    assert command(getting_started) == command(README)
