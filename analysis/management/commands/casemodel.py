"""``manage.py casemodel RESULTS.csv --metadata META.csv --spec SPEC.json
--output OUT.json [--scheme SCHEME.json]``: the case-characteristics models'
command line (contract ``case-models.md`` §4), no database needed."""

from __future__ import annotations

import contextlib
import io

from django.core.management.base import BaseCommand, CommandError

from casemodels.cli import build_parser, main


class Command(BaseCommand):
    help = "Fit mixed models of case characteristics (no database needed)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser) -> None:
        parser.add_argument("results", help="results table (CSV, or .xlsx)")
        for action in build_parser()._actions:
            if action.option_strings and action.dest != "help":
                parser.add_argument(
                    *action.option_strings,
                    dest=action.dest,
                    required=action.required,
                    default=action.default,
                    help=action.help,
                )

    def handle(self, *args, **options) -> None:
        argv = [options["results"]]
        for name in ("metadata", "spec", "output", "scheme"):
            if options.get(name) is not None:
                argv += [f"--{name}", str(options[name])]
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            code = main(argv)
        if code != 0:
            message = errors.getvalue().strip().removeprefix("error: ")
            raise CommandError(message or "case model failed", returncode=code)
