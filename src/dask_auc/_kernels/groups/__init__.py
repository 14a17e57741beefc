"""Grouped AUC (GAUC): group keys, hashed buckets, heavy groups cut by score.

By job: the plan (``plan``), a block cut by the hash of its keys (``split``),
dense group codes (``codes``), every group's pair sums (``pair_sums``), the
per-group tables and their union (``tables``), heavy groups cut over slots
(``heavy_groups``); the compiled loop (``_numba``).
"""
