"""Certified AUC states: one pass and a 28-day window, beside the exact AUC and binned estimates.

Run it as a script::

    python benchmarks/bench_states.py --rows 5e7 --repeats 3

On the same generated rows, in the same run, each method in a fresh process
(``_process.py``; ``--in-process``: all in this one, a smoke run) (the data
generated before the peak-memory baseline, ``_memory.PeakMeter``):

- ``roc_auc_score``: ``dask_auc.roc_auc_score`` on dask arrays (~4 blocks per
  core, threaded scheduler): the exact AUC, every other row's reference.
- ``roc_state``: ``dask_auc.roc_state(...).auc()`` on the same arrays: one
  pass, no sort; its certified ``[lower, upper]``, width and size in bytes.
- ``window-28``: the rows cut into 28 consecutive "days", each day's state
  saved to a file (not timed); timed: loading the 28 files, merging them and
  ``auc()`` -- what ``dask-auc --states ... --window 28`` does every day.
- ``tf-200``: TensorFlow's ``tf.keras.metrics.AUC(num_thresholds=200)`` in
  NumPy: thresholds ``-1e-7, 1/199, ..., 198/199, 1 + 1e-7``, a row counts as
  predicted positive when ``score > threshold``, the trapezoid of the 200
  points (its default ``summation_method="interpolation"``).
- ``torchmetrics-200``: torchmetrics' ``BinaryAUROC(thresholds=200)`` in NumPy:
  thresholds ``linspace(0, 1, 200)``, positive when ``score >= threshold``,
  the trapezoid of the 200 points.

The binned estimates state no error; the table puts their error against the
exact AUC beside the certified width of dask-auc's state, which always
contains the exact AUC (the ``contains exact`` column checks it).

Score kinds (``--kinds``): ``continuous``, the benchmarks' logistic-model
scores (``_data.py``, ~30% positives, AUC ~0.84); ``ctr``, click-through-like
scores skewed towards 0 (logits ~ N(-3.5, 1), each row clicked with its own
probability: ~4% positives, AUC ~0.75), where 200 linear thresholds put most
rows in the first few bins; ``ctr4``, the same rounded to 4 decimals (at most
10,001 distinct scores: the state is exact in one pass).

``--block-pass``: instead, the state's pass over one block (``--rows`` rows,
one thread, the compiled loops) step by step, in ns a row.  A block of more
rows than ``--resolution``: one table of whole keys (or its early stop), the
range and bitmap that fix the bits, then the step that counts the rows (one
dense table, or histogram, scatter and parts), the whole ``block_bins``.  A
block of at most that many (every key a bin): a small table of keys (or its
early stop), then the keys of each class, NumPy's sorts and the runs'
merge (``--weighted``: the keys, NumPy's argsort, the sums in row order).
Then ``binned_rows`` (compiled), the NumPy definition, ``block_state`` (with
the validation) and, as a floor, a sum of the scores.  The best of
``--repeats`` CPU times (``time.thread_time``)::

    python benchmarks/bench_states.py --block-pass --rows 1e7 --kinds continuous,ctr,ctr4
    python benchmarks/bench_states.py --block-pass --rows 1.25e5 --weighted --kinds continuous,ctr4
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import _process  # noqa: E402
from _data import GEN_CHUNK, generate  # noqa: E402
from bench_auc import environment, fmt_rows, fmt_seconds, markdown_table  # noqa: E402

METHODS = ("roc_auc_score", "roc_state", "window-28", "tf-200", "torchmetrics-200")
KINDS = ("continuous", "ctr", "ctr4")
DAYS = 28
THRESHOLDS = 200
MIB = 1 << 20


# -- data -------------------------------------------------------------------------------


def generate_kind(rows: int, kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (int8) and float64 scores of a kind; ``continuous`` is ``_data.py``'s."""
    if kind == "continuous":
        return generate(rows, "continuous", seed)
    label, score = np.empty(rows, np.int8), np.empty(rows, np.float64)
    for start in range(0, rows, GEN_CHUNK):  # a seeded generator per chunk, as _data.py
        stop = min(rows, start + GEN_CHUNK)
        rng = np.random.default_rng([seed, 31, start // GEN_CHUNK])
        logit = rng.normal(-3.5, 1.0, stop - start)
        probability = 1.0 / (1.0 + np.exp(-logit))
        label[start:stop] = rng.random(stop - start) < probability
        score[start:stop] = np.round(probability, 4) if kind == "ctr4" else probability
    return label, score


# -- the binned estimates, as their libraries compute them ------------------------------


def _binned_auc(label: np.ndarray, score: np.ndarray, thresholds: np.ndarray, side: str) -> float:
    """The trapezoid of the ROC points at ``thresholds`` (ascending).

    ``side="left"``: a row is positive above a threshold (``score > t``);
    ``"right"``: at or above it (``score >= t``).  A row's bucket is the
    number of thresholds it passes; the rows passing threshold ``i`` are
    those of the buckets above ``i``.
    """
    passed = np.searchsorted(thresholds, score, side=side)
    is_pos = label == 1
    size = len(thresholds) + 1
    pos = np.bincount(passed[is_pos], minlength=size)
    neg = np.bincount(passed[~is_pos], minlength=size)
    # rows passing threshold i: buckets i+1 .. len(thresholds)
    tp = np.cumsum(pos[::-1])[::-1][1:].astype(np.float64)
    fp = np.cumsum(neg[::-1])[::-1][1:].astype(np.float64)
    tpr, fpr = tp / pos.sum(), fp / neg.sum()  # descending as thresholds ascend
    return float(np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2))


def tf_auc(label: np.ndarray, score: np.ndarray) -> float:
    """``tf.keras.metrics.AUC(num_thresholds=200)``: ``score > t``, epsilon-padded ends."""
    epsilon = 1e-7
    inner = [(i + 1) / (THRESHOLDS - 1) for i in range(THRESHOLDS - 2)]
    thresholds = np.array([0.0 - epsilon, *inner, 1.0 + epsilon])
    return _binned_auc(label, score, thresholds, side="left")


def torchmetrics_auc(label: np.ndarray, score: np.ndarray) -> float:
    """``torchmetrics`` ``BinaryAUROC(thresholds=200)``: ``score >= t``, ``linspace(0, 1)``."""
    return _binned_auc(label, score, np.linspace(0.0, 1.0, THRESHOLDS), side="right")


# -- the methods: set up outside the timing, ``run()`` timed -----------------------------


def _dask_arrays(label: np.ndarray, score: np.ndarray) -> tuple[Any, Any]:
    import dask.array as da

    chunks = max(1, -(-len(label) // (4 * (os.cpu_count() or 1))))
    return da.from_array(label, chunks=chunks), da.from_array(score, chunks=chunks)


def _bounds(bounds: Any, state: Any) -> dict[str, Any]:
    return {
        "value": bounds.estimate,
        "lower": bounds.lower,
        "upper": bounds.upper,
        "exact": bool(bounds.exact),
        "bytes": state.nbytes,
    }


@contextmanager
def setup(method: str, label: np.ndarray, score: np.ndarray) -> Iterator[Callable[[], dict]]:
    import dask

    import dask_auc

    if method in ("tf-200", "torchmetrics-200"):
        estimate = tf_auc if method == "tf-200" else torchmetrics_auc
        yield lambda: {"value": estimate(label, score)}
        return
    from dask_auc._kernels.sort.compiled import compile_now

    compile_now()  # every method timed with the compiled loops ready (numba installed)
    with dask.config.set(scheduler="threads"):
        y_true, y_score = _dask_arrays(label, score)
        if method == "roc_auc_score":
            dask_auc.roc_auc_score(y_true[: 1 << 17], y_score[: 1 << 17])  # numba compiled
            yield lambda: {"value": float(dask_auc.roc_auc_score(y_true, y_score))}
        elif method == "roc_state":
            dask_auc.roc_state(y_true[: 1 << 17], y_score[: 1 << 17])  # the states' loops too

            def one_pass() -> dict:
                state = dask_auc.roc_state(y_true, y_score)
                return _bounds(state.auc(), state)

            yield one_pass
        elif method == "window-28":
            with tempfile.TemporaryDirectory() as folder:
                paths = []
                edges = np.linspace(0, len(label), DAYS + 1).astype(np.int64)
                for day, (lo, hi) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
                    paths.append(Path(folder) / f"day{day:02}.state")
                    dask_auc.roc_state(y_true[lo:hi], y_score[lo:hi]).save(paths[-1])

                def window() -> dict:
                    merged = dask_auc.ROCState.merge([dask_auc.ROCState.load(p) for p in paths])
                    return _bounds(merged.auc(), merged)

                yield window
        else:
            raise ValueError(f"unknown method {method!r}; choose among {', '.join(METHODS)}")


def measure(method: str, rows: int, kind: str, repeats: int, seed: int) -> dict[str, Any]:
    """Generate the rows, set the method up, then time ``repeats`` runs and meter the peak."""
    import _memory

    label, score = generate_kind(rows, kind, seed)
    with setup(method, label, score) as run:
        meter = _memory.PeakMeter()
        meter.start()
        seconds, results = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            results.append(run())
            seconds.append(time.perf_counter() - start)
        peak = meter.stop()
    agree = all(r == results[0] for r in results)
    return {**results[-1], "seconds": seconds, "peak": peak, "values_agree": agree}


# -- the parent: one process per measurement, one table ---------------------------------


def run_measurement(method: str, rows: int, kind: str, args: argparse.Namespace) -> dict:
    """One row: :func:`measure` in a fresh process (or in this one with ``--in-process``)."""
    return _process.method_row(__file__, measure, method, rows, kind, args)


HEADER = [
    "method", "rows", "score kind", "seconds (median)", "roc_auc_score's / its", "peak MiB",
    "AUC (estimate)", "lower", "upper", "certified width", "error vs exact", "contains exact",
    "state bytes",
]  # fmt: skip


def table_row(
    method: str,
    rows: int,
    kind: str,
    result: dict,
    exact: float | None,
    exact_seconds: float | None = None,
) -> list[str]:
    """One method's row; ``exact_seconds``: ``roc_auc_score``'s median (the speed-up)."""
    if "error" in result:
        return [method, fmt_rows(rows), kind, "failed", *["-"] * 8, result["error"]]
    bounded = "lower" in result
    value = result["value"]
    if method == "roc_auc_score":
        error, contains = "0 (the reference)", "-"
    elif exact is None:
        error, contains = "- (no reference)", "-"
    else:
        error = f"{abs(value - exact):.2e}"
        inside = bounded and result["lower"] <= exact <= result["upper"]
        contains = ("yes" if inside else "NO") if bounded else "-"
    if not result["values_agree"]:
        contains += " (repeats differ: NO)"
    return [
        method,
        fmt_rows(rows),
        kind,
        fmt_seconds(statistics.median(result["seconds"])),
        _speedup(exact_seconds, statistics.median(result["seconds"])),
        f"{result['peak'] / MIB:.1f}",
        f"{value:.10f}",
        f"{result['lower']:.10f}" if bounded else "-",
        f"{result['upper']:.10f}" if bounded else "-",
        _width(result, method),
        error,
        contains,
        f"{result['bytes']:,}" if bounded else "-",
    ]


def _speedup(exact_seconds: float | None, seconds: float) -> str:
    """How many times faster than ``roc_auc_score`` (same rows, same run)."""
    if exact_seconds is None or seconds <= 0:
        return "-"
    return f"{exact_seconds / seconds:.2f}x"


def _width(result: dict, method: str) -> str:
    if method == "roc_auc_score":
        return "0 (exact)"
    if "lower" not in result:
        return "none stated"
    width = result["upper"] - result["lower"]
    return "0 (exact)" if width == 0 and result["exact"] else f"{width:.2e}"


def block_pass(
    rows: int, kind: str, repeats: int, seed: int, max_bins: int, weighted: bool = False
) -> list[str]:
    """The state's pass over one block of ``rows`` rows, step by step: lines of ns a row."""
    from dask_auc._kernels.states import _dense, _sorted
    from dask_auc._kernels.states import _numba as loops
    from dask_auc._kernels.states.bins import PART_ROWS, PARTS, binned_rows, block_state

    label, score = generate_kind(rows, kind, seed)
    weights = np.random.default_rng([seed, 7]).random(rows) if weighted else None
    bits, flags = score.view(np.uint64), (label == 1).view(np.uint8)
    given = np.zeros(0) if weights is None else weights
    limit, part_rows = min(max_bins + max_bins // 4, rows), max(-(-rows // PARTS), PART_ROWS)
    steps: dict[str, Callable[[], Any]] = {}
    if rows <= max_bins:  # a small block: every key a bin (``bins._hashed``)
        few = min(max(rows // 4, 64), max_bins)
        steps["table of few keys"] = lambda: loops.few_keys(bits, flags, given, few)
        if loops.few_keys(bits, flags, given, few) is None:
            if weights is None:
                keys, p = _sorted.class_keys(bits, flags)
                ordered = np.concatenate(
                    [np.sort(keys[:p]), keys[p : p + 1], np.sort(keys[p + 1 :])]
                )
                steps["class keys"] = lambda: _sorted.class_keys(bits, flags)
                steps["sorts (NumPy)"] = lambda: [np.sort(keys[:p]), np.sort(keys[p + 1 : -1])]
                steps["runs"] = lambda: _sorted.class_runs(ordered, p)
            else:
                keys = _sorted.row_keys(bits)
                order = np.argsort(keys)
                steps["keys"] = lambda: _sorted.row_keys(bits)
                steps["argsort (NumPy)"] = lambda: np.argsort(keys)
                steps["ordered sums"] = lambda: _sorted.ordered_sums(keys, order, flags, given)
    else:
        steps["one table (or stop)"] = lambda: loops.few_keys(bits, flags, given, max_bins)
        if loops.few_keys(bits, flags, given, max_bins) is None:
            cell_shift, low, high, start = (int(v) for v in loops.block_level(bits, max_bins))
            steps["range and bitmap"] = lambda: loops.block_level(bits, max_bins)
            shift = 64 - start
            span = _dense.dense_span(low, high, shift, rows) if start < 64 else 0
            if span:
                origin = np.uint64(low >> shift if shift < 64 else 0)
                steps["dense table"] = lambda: loops.dense_bins(
                    bits, flags, given, shift, origin, span
                )
            else:
                cells = np.array([cell_shift, low], np.uint64)
                layout = loops._layout(bits, cells[0], cells[1], part_rows)
                scattered = loops._scattered(bits, flags, given, cells[0], *layout[:2])
                steps["histogram"] = lambda: loops._layout(bits, cells[0], cells[1], part_rows)
                steps["scatter"] = lambda: loops._scattered(
                    bits, flags, given, cells[0], *layout[:2]
                )
                steps["parts"] = lambda: loops._parts(
                    *scattered[:2], *layout[1:], 64 - start, limit, max_bins
                )
        steps["block_bins"] = lambda: loops.block_bins(
            bits, flags, given, max_bins, limit, part_rows
        )
    positive = label == 1
    steps["binned_rows"] = lambda: binned_rows(
        score, positive, weights, max_bins=max_bins, loops=loops
    )
    steps["NumPy definition"] = lambda: binned_rows(score, positive, weights, max_bins=max_bins)
    steps["block_state"] = lambda: block_state(label, score, weights, max_bins=max_bins)
    steps["floor: sum of scores"] = score.sum
    lines = [f"block pass, {fmt_rows(rows)} {kind} rows{', weighted' if weighted else ''}, "
             f"resolution {max_bins}, one thread, CPU ns a row (best of {repeats}); "
             "the steps binned_rows takes, then the whole"]  # fmt: skip
    for name, step in steps.items():
        step()  # (compiled and warm)
        best = float("inf")
        for _ in range(repeats):
            began = time.thread_time()
            step()
            best = min(best, time.thread_time() - began)
        lines.append(f"  {name:22s} {best / rows * 1e9:7.2f}")
    return lines


def parse_list(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items or any(item not in choices for item in items):
            raise argparse.ArgumentTypeError(f"{text!r}: choose among {', '.join(choices)}")
        return items

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--rows", type=lambda t: int(float(t)), default=int(5e7), help="rows")
    parser.add_argument(
        "--kinds", type=parse_list(KINDS), default=["continuous", "ctr"], help=", ".join(KINDS)
    )
    parser.add_argument(
        "--methods", type=parse_list(METHODS), default=list(METHODS), help=", ".join(METHODS)
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per measurement")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per measurement")
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    parser.add_argument(
        "--block-pass", action="store_true", help="the state's pass over one block, step by step"
    )
    parser.add_argument(
        "--resolution", type=int, default=1 << 18, help="--block-pass: the state's resolution"
    )
    parser.add_argument(
        "--weighted", action="store_true", help="--block-pass: with sample weights too"
    )
    _process.add_in_process_flag(parser)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.rows < DAYS or args.repeats < 1:
        raise SystemExit(f"--rows must be >= {DAYS} and --repeats >= 1")
    if args.block_pass:
        from dask_auc._kernels.sort.compiled import compile_now

        compile_now()
        for kind in args.kinds:
            for weighted in (False, True) if args.weighted else (False,):
                lines = block_pass(
                    args.rows, kind, args.repeats, args.seed, args.resolution, weighted
                )
                print("\n".join(lines), flush=True)
        return 0
    if args.measure is not None:
        _process.emit(measure(args.measure, args.rows, args.kinds[0], args.repeats, args.seed))
        return 0
    shown = shlex.join(argv if argv is not None else sys.argv[1:])
    started = datetime.datetime.now().astimezone()
    env_line = environment()
    lines = []
    for kind in args.kinds:
        results = {}
        for method in args.methods:
            print(
                f"{method} {fmt_rows(args.rows)} {kind} ...", end=" ", file=sys.stderr, flush=True
            )
            results[method] = run_measurement(method, args.rows, kind, args)
            print(results[method].get("error", "done"), file=sys.stderr, flush=True)
        reference = results.get("roc_auc_score", {})
        exact = reference.get("value")
        exact_seconds = statistics.median(reference["seconds"]) if "seconds" in reference else None
        lines += [
            table_row(m, args.rows, kind, r, exact, exact_seconds) for m, r in results.items()
        ]
    notes = [
        "roc_auc_score's / its: roc_auc_score's median seconds over the method's (the issue "
        "asks >= 3x for roc_state at 5e7 rows, threads)",
        "error vs exact: |AUC (estimate) - roc_auc_score|; certified width: upper - lower, "
        "which contains the exact AUC by construction (checked: contains exact)",
        f"window-{DAYS}: the rows cut into {DAYS} consecutive days, each day's state saved "
        "(not timed); timed: load the files, merge, auc()",
        "peak MiB: RSS high-water mark above the RSS after generating the data and setting up",
        "tf-200 and torchmetrics-200 share their inner thresholds (k/199): they differ only "
        "on scores equal to one of them (> against >=)",
    ]
    _process.write_report(
        command=f"python benchmarks/bench_states.py {shown}",
        started=started,
        env_line=env_line,
        table=markdown_table(HEADER, lines, right=frozenset({3, 4, 5, 6, 7, 8, 9, 10, 12})),
        notes=notes,
        in_process=args.in_process,
        output=args.output,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
