"""The states family: a small, mergeable summary of a binary input, and the AUC bounds it certifies.

A state (:class:`~.bins.StateBins`) holds, per bin of scores, the rows (or
weight) of each class and the bin's lowest and highest score.  Bins are
prefixes of an order-preserving 64-bit key of the score, so states of any
partitions, workers or days merge -- associatively and commutatively -- into
the state of their concatenated rows (:func:`~.bins.merge_states`); the AUC's
lower and upper bounds follow from it (:func:`~.bounds.auc_bounds`), exact
where every bin holds one distinct score.  No sort across partitions: one
pass, each block on its own.

Nothing here imports dask.
"""
