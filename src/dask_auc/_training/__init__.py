"""Exact AUCs where Dask users train models: inside xgboost.dask's rounds, and per iteration after.

:mod:`.dense` sums a state of the eval set over the workers of a collective
(pure NumPy, the collective given as a function); :mod:`.xgb` is the
xgboost metric over it; :mod:`.staged` evaluates saved iterations of a
trained model (lightgbm's and xgboost's) on a Dask collection.
"""
