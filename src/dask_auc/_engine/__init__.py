"""The engine: inputs, the sort and its exchange, the lazy result; it knows no metric.

This package is the engine's door: faces import from ``dask_auc._engine``,
never from its modules.
"""

from .arrays import MIN_ROWS_PER_BLOCK
from .blocks import Blocks, sizes_of
from .blockwise import gather, lazy_of, map_blocks, map_indexed_blocks, merge_tree, zip_blocks
from .collector import frozen_heap
from .config import bucket_bytes, compiled_kernels, split_every_default
from .frames import hashed_blocks, map_frame
from .hashed import HashedGraph
from .inputs import only_column, prepared_blocks
from .lazy import FinishEach, LazyScore, compute
from .matrices import score_column_count, side_by_side
from .sample_sort import SortedGraph

__all__ = [
    "Blocks",
    "FinishEach",
    "HashedGraph",
    "LazyScore",
    "MIN_ROWS_PER_BLOCK",
    "SortedGraph",
    "bucket_bytes",
    "compiled_kernels",
    "compute",
    "frozen_heap",
    "gather",
    "hashed_blocks",
    "lazy_of",
    "map_blocks",
    "map_frame",
    "map_indexed_blocks",
    "merge_tree",
    "only_column",
    "prepared_blocks",
    "score_column_count",
    "side_by_side",
    "sizes_of",
    "split_every_default",
    "zip_blocks",
]
