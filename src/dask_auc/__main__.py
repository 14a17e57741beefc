"""``python -m dask_auc``: the ``dask-auc`` command (see :mod:`dask_auc.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":  # worker processes re-import this module: do not run there
    sys.exit(main())
