"""The CORP reliability diagram against one AUC, the in-memory isotonic floor and model-diagnostics.

Run it as a script::

    python benchmarks/bench_reliability.py --rows 2e7 --repeats 3
    python benchmarks/bench_reliability.py --rows 2e7 --repeats 7 --kernel  # one bucket's kernel

Every score kind (``--kinds``) is measured in a fresh Python process
(``_process.py``; ``--in-process``: all in this one, a smoke run), which
generates ``_data.py``'s rows (labels and a logistic model's probabilities,
``tied``: rounded to 3 decimals; NumPy arrays wrapped in dask arrays of
``--chunks`` chunks, threaded scheduler), compiles the numba loops on a few
rows, runs each row once metering its peak RSS above the process's baseline
(``_memory.py``), then times ``--repeats`` rounds of one run of each
dask-auc row in turn (so that no row is the process's cold first), then
each peer's ``--repeats`` runs, and reports each row's median and its
ratio to ``roc_auc_score``.

Rows:

* ``roc_auc_score`` -- one exact AUC (the unit);
* ``reliability_diagram`` -- the diagram and both decompositions alone (its
  own sort);
* ``roc(): auc alone`` -- the AUC of a fresh :func:`dask_auc.roc`, as the row
  below computes it without the diagram (the unit of the second bar);
* ``roc(): auc + reliability, one compute`` -- both from one
  :func:`dask_auc.roc`, ``compute=False`` and one :func:`dask_auc.compute`:
  what the diagram adds to a sort made anyway (issue 33: <= 1.10x the row
  above; alone, <= 1.3x ``roc_auc_score``);
* ``IsotonicRegression, pooled ties (in-memory floor)`` -- ``np.unique`` of
  the scores, each class counted per distinct score, scikit-learn's
  ``IsotonicRegression`` fitted to the shares, the Brier decomposition from
  the fit: one process, all rows in memory;
* ``model-diagnostics decompose`` -- ``decompose(y, p,
  scoring_function=SquaredError())`` (polars), if installed.

Every row's Brier decomposition (score, MCB, DSC, UNC) is compared with
``reliability_diagram``'s, and the AUCs with ``roc_auc_score``'s: ``same
answer`` is ``yes`` within 1e-12 of the score.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from _data import DEFAULT_KINDS, KINDS  # noqa: E402

TOLERANCE = 1e-12
ROWS = (
    "roc_auc_score",
    "reliability_diagram",
    "roc(): auc alone",
    "roc(): auc + reliability, one compute",
    "IsotonicRegression, pooled ties (in-memory floor)",
    "model-diagnostics decompose",
)
PARTS = ("score", "miscalibration", "discrimination", "uncertainty")


def isotonic_floor(y: Any, p: Any) -> dict[str, float]:
    """The Brier decomposition from scikit-learn's isotonic fit of the pooled ties."""
    import numpy as np
    from sklearn.isotonic import IsotonicRegression

    scores, inverse = np.unique(p, return_inverse=True)
    total = np.bincount(inverse).astype(float)
    pos = np.bincount(inverse, weights=y)
    fit = IsotonicRegression().fit(scores, pos / total, sample_weight=total).predict(scores)
    n, rate = len(y), pos.sum() / len(y)
    score = float(np.mean((p - y) ** 2))
    fitted = float(np.sum(pos * (1 - fit) ** 2 + (total - pos) * fit**2) / n)
    uncertainty = rate * (1 - rate)
    return dict(zip(PARTS, (score, score - fitted, uncertainty - fitted, uncertainty), strict=True))


def model_diagnostics_decompose(y: Any, p: Any) -> dict[str, float]:
    from model_diagnostics.scoring import SquaredError, decompose

    table = decompose(y, p, scoring_function=SquaredError())
    return {part: float(table[part][0]) for part in PARTS}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One process, the kind ``args.measure``: each row's median time, peak memory and answer."""
    import importlib
    import importlib.util

    import _memory
    import dask
    import dask.array as da
    from _data import generate
    from bench_many import timed

    import dask_auc

    dask.config.set(scheduler="threads")
    label, proba = generate(args.rows, args.measure)
    size = -(-args.rows // args.chunks)
    y, p = da.from_array(label, chunks=size), da.from_array(proba, chunks=size)
    # compile the numba loops on a few rows and import the peers: not what the rows measure;
    # compile_now waits for this CPU's timed choices too, which would otherwise run in the
    # background during the first row's timings (its roc_auc_score took ~1.4x as long)
    from dask_auc._kernels.sort.compiled import compile_now

    compile_now()
    dask_auc.compute(*_both(dask_auc.roc(label[:10_000], proba[:10_000])))
    peers = ["sklearn.isotonic", "model_diagnostics.scoring"]
    for module in [m for m in peers if importlib.util.find_spec(m.partition(".")[0])]:
        importlib.import_module(module)
    out: dict[str, Any] = {}

    def brier(diagram: Any) -> dict[str, float]:
        return {"brier": dict(zip(PARTS, map(float, diagram.brier), strict=True))}

    def together() -> dict[str, Any]:
        auc, diagram = dask_auc.compute(*_both(dask_auc.roc(y, p)))
        return {"auc": auc, **brier(diagram)}

    rows = {
        ROWS[0]: lambda: {"auc": dask_auc.roc_auc_score(y, p)},
        ROWS[1]: lambda: brier(dask_auc.reliability_diagram(y, p)),
        ROWS[2]: lambda: {"auc": dask_auc.compute(dask_auc.roc(y, p).auc(compute=False))[0]},
        ROWS[3]: together,
        ROWS[4]: lambda: {"brier": isotonic_floor(label, proba)},
    }
    if importlib.util.find_spec("model_diagnostics") is not None:
        rows[ROWS[5]] = lambda: {"brier": model_diagnostics_decompose(label, proba)}
    # Each row's peak memory from a metered first run, then its times from rounds of one run
    # of every row each: a row timed in a block of its own runs, first in the process, was
    # up to 1.4x slower than warm (the heap's page faults), and its ratios with it.
    answers: dict[str, Any] = {}
    for name, func in rows.items():
        _memory.start()
        answers[name] = func()
        out[name] = {"memory": _memory.stop()["peak"]}
    # the peers' gigabytes of temporaries would unsettle the heap of the row after them:
    # dask-auc's rows in rounds, then each peer's runs together
    ours = [name for name in rows if name in ROWS[:4]]
    times: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.repeats):
        for name in ours:
            seconds, answers[name] = timed(rows[name], 1)
            times[name].append(seconds)
    for name in rows:
        if name not in ours:
            seconds, answers[name] = timed(rows[name], args.repeats)
            times[name].append(seconds)
        out[name].update(seconds=statistics.median(times[name]), **answers[name])
    return out


def _both(curve: Any) -> tuple[Any, Any]:
    return curve.auc(compute=False), curve.reliability(compute=False)


def same_answer(entry: dict[str, Any], result: dict[str, Any]) -> str:
    """``yes (Δ ...)`` when the row's answers are within 1e-12 of the references'."""
    deltas = []
    if "auc" in entry:
        deltas.append(abs(entry["auc"] - result[ROWS[0]]["auc"]))
    if "brier" in entry:
        want = result[ROWS[1]]["brier"]
        scale = max(abs(want["score"]), abs(want["uncertainty"]), 1e-300)
        deltas += [abs(entry["brier"][part] - want[part]) / scale for part in PARTS]
    delta = max(deltas)
    return f"{'yes' if delta <= TOLERANCE else 'NO'} (Δ {delta:.1e})"


def table(result: dict[str, Any], rows: int) -> str:
    lines = [
        "| measurement | seconds (median) | x roc_auc_score | peak MiB | bytes/row | same answer |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    unit = result[ROWS[0]]["seconds"]
    for name in ROWS:
        if name not in result:
            lines.append(f"| {name} | - | - | - | - | not installed |")
            continue
        entry = result[name]
        lines.append(
            f"| {name} | {entry['seconds']:.3f} | {entry['seconds'] / unit:.2f}x | "
            f"{entry['memory'] / 2**20:,.0f} | {entry['memory'] / rows:.1f} | "
            f"{same_answer(entry, result)} |"
        )
    alone = result[ROWS[1]]["seconds"] / unit
    added = result[ROWS[3]]["seconds"] / result[ROWS[2]]["seconds"]
    lines.append(
        f"\nissue 33's bars: reliability_diagram alone {alone:.2f}x roc_auc_score (<= 1.30x); "
        f"with a ROC computed anyway {added:.2f}x its AUC alone (<= 1.10x)"
    )
    return "\n".join(lines)


def kernel(args: argparse.Namespace) -> None:
    """The bucket kernel alone (``--kernel``): CPU seconds a row of one thread's ``bucket_blocks``.

    One bucket of ``rows / chunks`` rows of each kind (all the score range at a
    bucket's size: a real bucket holds a slice of it), unweighted, with float
    weights and with integer multiplicities (``--weights``), compiled and NumPy
    alternated, the best and the median of ``--repeats`` runs: the
    ``reliability-blocks`` task of a task profile, without the scheduler.  The
    two paths' stacks are checked to be the same bits.
    """
    import time

    import numpy as np
    from _data import generate

    from dask_auc._kernels.binary.reliability import bucket_blocks
    from dask_auc._kernels.sort.buckets import Bucket
    from dask_auc._kernels.sort.compiled import compile_now
    from dask_auc._kernels.sort.rows import SortedScores

    compile_now()
    size = -(-args.rows // args.chunks)
    rng = np.random.default_rng(0)
    for kind in args.kinds.split(","):
        label, proba = generate(size, kind)
        for weighting in args.weights.split(","):
            parts = []
            for c in (1, 0):
                scores = np.sort(proba[label == c])
                weights = {
                    "none": None,
                    "float": rng.random(len(scores)) + 0.5,
                    "counts": rng.integers(1, 4, len(scores)),
                }[weighting]
                parts.append(SortedScores(scores, weights))
            buckets = {c: Bucket.binary(*parts, compiled=c) for c in (True, False)}
            stacks = {c: bucket_blocks(b) for c, b in buckets.items()}
            if not _same_stack(stacks[True], stacks[False]):
                raise SystemExit(f"{kind}, {weighting} weights: the two paths' stacks differ")
            seconds: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.repeats):
                for compiled, bucket in buckets.items():  # alternated: the same machine load
                    start = time.thread_time()
                    bucket_blocks(bucket)
                    seconds[compiled].append(time.thread_time() - start)
            for compiled in (True, False):
                times = sorted(seconds[compiled])
                best, median = times[0], times[len(times) // 2]
                print(
                    f"{kind:>10} {weighting:>6} {'compiled' if compiled else 'NumPy':>8}: "
                    f"{best / size * 1e9:6.1f} ns a row (median {median / size * 1e9:.1f}), "
                    f"{size:,} rows"
                )


def _same_stack(a: Any, b: Any) -> bool:
    """Whether two block stacks are the same bits (arrays by their bytes, the rest equal)."""
    arrays = ("low", "high", "pos", "neg")
    if any(getattr(a, n).dtype != getattr(b, n).dtype for n in arrays):
        return False
    if any(getattr(a, n).tobytes() != getattr(b, n).tobytes() for n in arrays):
        return False
    ends = [[g if g is None else tuple(map(float, g)) for g in (s.bottom, s.top)] for s in (a, b)]
    sums = [(s.brier, s.log, s.proba, s.infinite) for s in (a, b)]
    return ends[0] == ends[1] and sums[0] == sums[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(2e7))
    parser.add_argument("--chunks", type=int, default=16, help="dask chunks of the arrays")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row")
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS), help=f"of {', '.join(KINDS)}")
    _process.add_in_process_flag(parser)
    parser.add_argument(
        "--kernel", action="store_true", help="time the bucket kernel alone, one thread"
    )
    parser.add_argument(
        "--weights", default="none,float,counts", help="with --kernel: of none, float, counts"
    )
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.rows < 2:
        raise SystemExit("--repeats must be >= 1 and --rows >= 2")
    if args.measure:
        _process.emit(measure(args))
        return 0
    if args.kernel:
        kernel(args)
        return 0
    passed = argv if argv is not None else sys.argv[1:]
    print(f"$ python {shlex.join(['benchmarks/bench_reliability.py', *passed])}")
    print(
        f"{args.rows:,} rows, {args.chunks} chunks, threaded scheduler, {os.cpu_count()} cores; "
        "issue 33's bars: reliability_diagram alone <= 1.30x roc_auc_score, "
        "auc + reliability from one roc() <= 1.10x its auc alone"
        + (f"; {_process.IN_PROCESS_NOTE}" if args.in_process else "")
    )
    for kind in args.kinds.split(","):
        if kind not in KINDS:
            raise SystemExit(f"unknown kind {kind!r}; choose among {', '.join(KINDS)}")
        command = _process.script_command(
            __file__, "--rows", args.rows, "--chunks", args.chunks, "--repeats", args.repeats,
            "--measure", kind,
        )  # fmt: skip
        result = _process.measure_row(measure, args, command, measure=kind)
        if "error" in result:
            print(f"{kind} scores: the measurement failed: {result['error']}", file=sys.stderr)
            return 1
        print(f"\n{kind} scores\n")
        print(table(result, args.rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
