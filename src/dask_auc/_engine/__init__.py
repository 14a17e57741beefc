"""The engine: inputs, the sort and its exchange, the lazy result; it knows no metric."""

from .config import compiled_kernels, split_every_default
from .graph import (
    HashedGraph,
    SortedGraph,
    gather,
    lazy_of,
    map_blocks,
    map_indexed_blocks,
    zip_blocks,
)
from .inputs import (
    MIN_ROWS_PER_BLOCK,
    hashed_blocks,
    map_frame,
    prepared_blocks,
    score_column_count,
    side_by_side,
)
from .lazy import LazyScore, compute

__all__ = [
    "MIN_ROWS_PER_BLOCK",
    "HashedGraph",
    "LazyScore",
    "SortedGraph",
    "compiled_kernels",
    "compute",
    "gather",
    "hashed_blocks",
    "lazy_of",
    "map_blocks",
    "map_frame",
    "map_indexed_blocks",
    "prepared_blocks",
    "score_column_count",
    "side_by_side",
    "split_every_default",
    "zip_blocks",
]
