"""Metrics of each row with no sort: per-sample ranking metrics and calibration."""
