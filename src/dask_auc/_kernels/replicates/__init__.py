"""Bootstrap replicates computed on the sorted buckets, every replicate at once."""
