"""Coverage of the bootstrap interval: how often the 95% interval holds the true AUC.

Run it as a script::

    python benchmarks/bootstrap_coverage.py --trials 400 --rows 2000 --replicates 1000

Each trial draws a binormal sample of known AUC (negatives N(0, 1),
positives N(d, 1), a third positive: the AUC is ``Phi(d / sqrt(2))``), in 4
dask chunks, computes ``bootstrap_ci`` (percentile interval, its own seed per
trial) and DeLong's ``roc_auc_ci`` for comparison, and counts the trials
whose interval holds the true AUC.  A correct 95% interval covers in about
95% of the trials; the binomial standard error of the rate is printed beside
it.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from statistics import NormalDist


def main(argv: list[str] | None = None) -> int:
    import dask.array as da
    import numpy as np

    import dask_auc

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--auc", type=float, default=0.75)
    args = parser.parse_args(argv)
    d = math.sqrt(2) * NormalDist().inv_cdf(args.auc)
    covered = {"bootstrap": 0, "DeLong": 0}
    widths: dict[str, list[float]] = {"bootstrap": [], "DeLong": []}
    start = time.perf_counter()
    for trial in range(args.trials):
        rng = np.random.default_rng(10_000 + trial)
        y = (rng.random(args.rows) < 1 / 3).astype(np.int8)
        s = rng.normal(size=args.rows) + d * y
        chunk = -(-args.rows // 4)
        Y, S = da.from_array(y, chunks=chunk), da.from_array(s, chunks=chunk)
        boot = dask_auc.bootstrap_ci(Y, S, n_bootstraps=args.replicates, random_state=trial)
        delong = dask_auc.roc_auc_ci(Y, S)
        for name, (low, high) in {
            "bootstrap": (boot.low, boot.high),
            "DeLong": (delong.low, delong.high),
        }.items():
            covered[name] += low <= args.auc <= high
            widths[name].append(high - low)
    seconds = time.perf_counter() - start
    print(f"$ python {shlex.join(['benchmarks/bootstrap_coverage.py', *(argv or sys.argv[1:])])}")
    print(
        f"{args.trials} trials of {args.rows:,} binormal rows (true AUC {args.auc}), "
        f"{args.replicates} replicates each, {seconds:.0f} s"
    )
    print()
    print("| interval | coverage of the true AUC | binomial s.e. | mean width |")
    print("| --- | ---: | ---: | ---: |")
    for name, hits in covered.items():
        rate = hits / args.trials
        se = math.sqrt(rate * (1 - rate) / args.trials)
        print(f"| {name} (95%) | {rate:.3f} | {se:.3f} | {np.mean(widths[name]):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
