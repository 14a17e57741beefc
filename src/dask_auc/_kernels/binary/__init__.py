"""Binary queries on the sorted buckets: curves, thresholds, partial AUC, DeLong, Mann-Whitney U."""
