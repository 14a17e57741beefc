"""Draw ``docs/roc.png``, the README's figure, with dask-auc's own plots.

Two scikit-learn models -- ``HistGradientBoostingClassifier`` and a
``LogisticRegression`` on scaled features and one-hot countries -- are trained
on 100,000 generated click rows (``notebooks/clicks.py``, the data of the
real-model notebook), score 1,000,000 further rows held in a dask DataFrame on a
local cluster, and :func:`dask_auc.plot_roc` and
:func:`dask_auc.plot_precision_recall` draw both models side by side (Agg).

Run from the repository root::

    python docs/make_figure.py            # writes docs/roc.png
    python docs/make_figure.py --rows 2e5 --out /tmp/roc.png
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# before scikit-learn loads OpenMP: its training threads would spin against the
# cluster's workers on a small machine
os.environ.setdefault("OMP_NUM_THREADS", "1")

import dask.dataframe as dd  # noqa: E402
import matplotlib  # noqa: E402
import pandas as pd  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402
from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

import dask_auc  # noqa: E402

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "notebooks"))
from clicks import FEATURES, click_rows  # noqa: E402

TRAIN_ROWS = 100_000
PARTITIONS = 16


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6, help="rows scored (1e6)")
    parser.add_argument("--out", type=Path, default=REPOSITORY / "docs" / "roc.png")
    args = parser.parse_args(argv)
    rows = int(args.rows)
    users = max(100, rows // 100)

    train = click_rows(TRAIN_ROWS, seed=1_000_000, users=users)
    models = {
        "gradient boosting": HistGradientBoostingClassifier(random_state=0),
        "logistic regression": make_pipeline(
            make_column_transformer((OneHotEncoder(), ["country"]), remainder=StandardScaler()),
            LogisticRegression(),
        ),
    }
    for model in models.values():
        model.fit(train[FEATURES], train.clicked)

    def add_scores(part: pd.DataFrame) -> pd.DataFrame:
        scores = {name: model.predict_proba(part[FEATURES])[:, 1] for name, model in models.items()}
        return part.assign(**scores)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster),
    ):
        sizes = [rows // PARTITIONS + (i < rows % PARTITIONS) for i in range(PARTITIONS)]
        frame = dd.from_map(
            click_rows, sizes, range(PARTITIONS), users=users, meta=click_rows(0, 0, users)
        )
        meta = {**frame.dtypes.to_dict(), **dict.fromkeys(models, "float64")}
        scored = frame.map_partitions(add_scores, meta=meta).persist()
        scores = {name: scored[name] for name in models}
        figure, (roc_axes, pr_axes) = plt.subplots(1, 2, figsize=(9, 4.5))
        dask_auc.plot_roc(scored.clicked, scores, ax=roc_axes)
        dask_auc.plot_precision_recall(scored.clicked, scores, ax=pr_axes)
    roc_axes.set_title(f"ROC, {rows:,} rows")
    pr_axes.set_title(f"Precision-recall, {rows:,} rows")
    pr_axes.legend(loc="upper right")  # clear of the chance line near the bottom
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
