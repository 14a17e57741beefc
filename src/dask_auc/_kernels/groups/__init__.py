"""Grouped AUC (GAUC): group keys, hashed buckets, heavy groups cut by score."""
