"""One query per column: multi-class and multilabel targets."""
