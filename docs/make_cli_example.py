"""Write the README's command-line example data: 1e6 clicks of 20,000 users in scores/.

Run ``python docs/make_cli_example.py DIR`` and then, in DIR,
``dask-auc scores/ --label clicked --score p --by user --max-fpr 0.1``.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd


def main(directory: str) -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    user = rng.integers(0, 20_000, n)
    clicked = (rng.random(n) < 0.1).astype(np.int64)
    p = 1 / (1 + np.exp(-(rng.normal(0, 1, n) + 1.2 * clicked - 2)))
    os.makedirs(os.path.join(directory, "scores"), exist_ok=True)
    frame = pd.DataFrame({"clicked": clicked, "p": p, "user": user})
    frame.to_parquet(os.path.join(directory, "scores", "part.0.parquet"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
