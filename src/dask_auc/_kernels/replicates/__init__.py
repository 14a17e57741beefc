"""Bootstrap replicates computed on the sorted buckets, every replicate at once.

By job: the counter-based Poisson counts and keys (``counts``), the rows
traced with their keys through the sort (``traced``), the tie groups' counts
of a bucket (``tie_groups``), pass 1's per-bucket summary (``summary``) and
its ordered merge (``scan``), pass 2's metric parts (``queries``), GAUC's
cluster bootstrap (``weighted_mean``); the compiled loops (``_numba``) and
their doors (``compiled``).
"""
