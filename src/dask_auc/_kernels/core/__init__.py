"""The core every stage shares.

The PartialROC monoid and exact sums, input validation, calibration terms,
footprints, stable order.
"""
