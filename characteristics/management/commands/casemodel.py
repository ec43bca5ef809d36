"""``manage.py casemodel RESULTS.csv --metadata META.csv --spec SPEC.json
--output OUT.json [--scheme SCHEME.json]``: the case-characteristics models'
command line (contract ``case-models.md`` §4), no database needed."""

from __future__ import annotations

from analysis.management.wrapped_cli import WrappedCliCommand
from casemodels.cli import build_parser, main


class Command(WrappedCliCommand):
    help = "Fit mixed models of case characteristics (no database needed)."
    build_parser = staticmethod(build_parser)
    run = staticmethod(main)
    failure = "case model failed"
