"""``python -m ranking RESULTS.csv --scheme SCHEME.json``."""

import sys

from .cli import main

sys.exit(main())
