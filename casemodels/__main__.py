"""``python -m casemodels``: the same command line as ``manage.py casemodel``."""

import sys

from .cli import main

sys.exit(main())
