"""``python -m ranking RESULTS.csv --scheme SCHEME.json``."""

import os
import sys

# The analysis runs BLAS on one thread (ranking/run.py). Asking for one before
# numpy loads (``import ranking`` does not load it) also spares the command
# the thread pool OpenBLAS starts with numpy, whose idle threads spin: 0.1 s
# of the 0.27 s of CPU of a small job. A value set by the user is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from .cli import main  # noqa: E402  (numpy loads here, after the limit)

sys.exit(main())
