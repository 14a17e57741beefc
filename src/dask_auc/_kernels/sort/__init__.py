"""The sample sort.

Rows by label, block preparation, the sort plan, buckets, coalescing, the
label choice after the sort, compiled loops.
"""
