"""``manage.py casemodel RESULTS.csv --metadata META.csv --spec SPEC.json
--output OUT.json [--scheme SCHEME.json]``: the case-characteristics models'
command line (contract ``case-models.md`` §4), no database needed. Its bounds
default to the settings the fit's job uses (``CASE_MODEL_MAX_*``)."""

from __future__ import annotations

import argparse

from analysis.management.wrapped_cli import WrappedCliCommand
from casemodels.cli import build_parser, main
from characteristics.bounds import case_model_bounds


def _parser_with_settings_bounds() -> argparse.ArgumentParser:
    parser = build_parser()
    parser.set_defaults(**case_model_bounds())
    return parser


class Command(WrappedCliCommand):
    help = "Fit mixed models of case characteristics (no database needed)."
    build_parser = staticmethod(_parser_with_settings_bounds)
    run = staticmethod(main)
    failure = "case model failed"
