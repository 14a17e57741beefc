"""The input of ``dask-auc``: Parquet or CSV paths, directories and globs, read by dask.

Local inputs are checked before anything is computed: a missing path, a glob
that matches nothing, a directory without data files, and a file lacking a
column the options name (dask reads the columns of the first file only, so a
later file lacking one would fail in a task, mid-computation).  fsspec URLs
are passed to dask as they are.

Examples
--------
>>> file_kind("scores/part-0.csv.gz"), file_kind("scores/part-0.parquet")
('csv', 'parquet')
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

import dask.dataframe as dd
import pandas as pd

_GLOB_CHARACTERS = "*?["
#: the files of a directory dask reads as Parquet (its default ``parquet_file_extension``;
#: names starting with "." or "_" are skipped, as pyarrow's dataset discovery does)
_PARQUET_EXTENSIONS = (".parq", ".parquet", ".pq")
_HIDDEN = (".", "_")
#: how many column names an error message lists
_COLUMNS_SHOWN = 20


def read_columns(paths: Sequence[str], columns: dict[str, str]) -> tuple[dd.DataFrame, str]:
    """The named columns (role -> name) of the files, and their format ('csv' or 'parquet')."""
    kinds = {file_kind(path) for path in paths}
    if len(kinds) > 1:
        raise ValueError(f"cannot mix Parquet and CSV inputs: {' '.join(paths)}")
    (kind,) = kinds
    targets = [_existing(path, kind) for path in paths]
    _check_file_columns(targets, kind, list(dict.fromkeys(columns.values())), paths)
    if kind == "csv":
        numeric = {c: "float64" for r, c in columns.items() if r.startswith(("score", "weight"))}
        frame = dd.read_csv(targets, dtype=numeric)
    else:
        frame = dd.read_parquet(targets)
    missing = [c for c in dict.fromkeys(columns.values()) if c not in frame.columns]
    if missing:
        available = ", ".join(map(str, frame.columns))
        raise ValueError(
            f"column {missing[0]!r} not found in {' '.join(paths)}; available columns: {available}"
        )
    frame = frame[list(dict.fromkeys(columns.values()))]
    return frame, kind


def file_kind(path: str) -> str:
    """'csv' or 'parquet', from the extension (or a local directory's files)."""
    name = path.rstrip("/").lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".csv", ".tsv", ".txt")):
        return "csv"
    if os.path.isdir(path) and glob.glob(os.path.join(path, "*.csv*")):
        return "csv"
    return "parquet"


def _existing(path: str, kind: str) -> str:
    """``path`` as dask should read it; FileNotFoundError for a missing local path."""
    if "://" in path:  # fsspec URL: the filesystem package checks it
        return path
    if any(c in path for c in _GLOB_CHARACTERS):
        if not glob.glob(path):
            raise FileNotFoundError(f"no files match {path!r}")
        return path
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {path!r}")
    if kind == "csv" and os.path.isdir(path):
        return os.path.join(path, "*.csv*")
    if os.path.isdir(path) and not _parquet_files(path)[0]:
        raise FileNotFoundError(
            f"no Parquet or CSV files found in {path!r} (Parquet files end in "
            f"{', '.join(_PARQUET_EXTENSIONS)}; CSV files in .csv)"
        )
    return path


def _parquet_files(directory: str) -> tuple[list[str], set[str]]:
    """The Parquet files dask reads in a local directory, and its hive partition columns.

    A ``key=value`` directory level is a column of its files' rows that the
    files themselves do not hold.
    """
    files: list[str] = []
    partitions: set[str] = set()
    for root, directories, names in os.walk(directory):
        directories[:] = sorted(d for d in directories if not d.startswith(_HIDDEN))
        partitions.update(d.partition("=")[0] for d in directories if "=" in d)
        files.extend(
            os.path.join(root, name)
            for name in sorted(names)
            if not name.startswith(_HIDDEN) and name.endswith(_PARQUET_EXTENSIONS)
        )
    return files, partitions


def _local_files(targets: Sequence[str], kind: str) -> tuple[list[str], set[str]]:
    """The local files behind ``targets`` (fsspec URLs left out), and partition columns."""
    files: list[str] = []
    partitions: set[str] = set()
    for target in targets:
        if "://" in target:
            continue
        matched = (
            sorted(glob.glob(target)) if any(c in target for c in _GLOB_CHARACTERS) else [target]
        )
        for path in matched:
            if kind == "parquet" and os.path.isdir(path):
                found, levels = _parquet_files(path)
                files.extend(found)
                partitions |= levels
            elif os.path.isfile(path):
                files.append(path)
    return files, partitions


def _file_columns(path: str, kind: str) -> list[str]:
    """The column names of one file: a Parquet footer's schema, or a CSV header line."""
    try:
        if kind == "csv":
            # the header only, read with dd.read_csv's defaults (compression from the name)
            return [str(name) for name in pd.read_csv(path, nrows=0).columns]
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    except (ValueError, OSError) as error:  # pyarrow's ArrowInvalid is a ValueError
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"cannot read the columns of {path}: {reason}") from error


def _check_file_columns(
    targets: Sequence[str], kind: str, wanted: list[str], paths: Sequence[str]
) -> None:
    """Check every local file holds the wanted columns, from its schema or header alone.

    A column no file holds is left to :func:`read_columns`'s message on the
    whole input (a typo in an option).
    """
    files, partitions = _local_files(targets, kind)
    lacking: dict[str, tuple[str, list[str]]] = {}  # column -> first file without it
    holding: dict[str, int] = dict.fromkeys(wanted, 0)
    for path in files:
        names = _file_columns(path, kind)
        for column in wanted:
            if column in names or column in partitions:
                holding[column] += 1
            else:
                lacking.setdefault(column, (path, names))
    for column, (path, names) in lacking.items():
        if holding[column]:
            shown = ", ".join(names[:_COLUMNS_SHOWN]) + (
                ", ..." if len(names) > _COLUMNS_SHOWN else ""
            )
            raise ValueError(
                f"column {column!r} not found in {path} ({holding[column]:,} of "
                f"{len(files):,} files in {' '.join(paths)} have it); its columns: {shown}"
            )
