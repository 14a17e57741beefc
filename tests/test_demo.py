"""The installed ``dask-auc-demo``: its printed metrics are scikit-learn's on the same rows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from dask_auc._demo import MAX_FPR, chunk_rows, generate

pytestmark = pytest.mark.cluster


def test_demo_prints_sklearns_values_and_both_times():
    # the claim is the printed values and their format, not a size: 30,000 rows in four
    # chunks still hold ties (4-decimal scores) and ~1,500 positives
    rows = 30_000
    script = Path(sys.executable).with_name("dask-auc-demo")
    done = subprocess.run(
        [str(script), "--rows", f"{rows:g}", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    label, score = (a.compute() for a in generate(rows, chunk_rows(rows, workers=1)))
    expected = {
        "ROC AUC": roc_auc_score(label, score),
        f"partial AUC, max_fpr={MAX_FPR:g}": roc_auc_score(label, score, max_fpr=MAX_FPR),
        "average precision": average_precision_score(label, score),
    }
    printed = {}
    for line in done.stdout.splitlines():
        match = re.match(r"  (\S.*?)\s+(0\.\d{12})\s+[\d.]+ s\s+(0\.\d{12})\s+[\d.]+ s$", line)
        if match:
            printed[match[1]] = (float(match[2]), float(match[3]))
    assert printed.keys() == expected.keys(), done.stdout
    for name, value in expected.items():
        assert printed[name] == (pytest.approx(value, abs=1e-12),) * 2, name
    assert f"{rows:,} generated rows ({int(label.sum()):,} positive)" in done.stdout
    assert "largest difference from scikit-learn" in done.stdout
    assert done.stderr == ""
