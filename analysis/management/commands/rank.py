"""``manage.py rank RESULTS.csv --scheme SCHEME.json [--bootstrap N] [--seed S]
[--output OUT.json]``: the engine's command line, unchanged (no database)."""

from __future__ import annotations

from ranking.cli import build_parser, main

from ..wrapped_cli import WrappedCliCommand


class Command(WrappedCliCommand):
    help = "Rank challenge results under a ranking scheme (no database needed)."
    build_parser = staticmethod(build_parser)
    run = staticmethod(main)
    failure = "ranking failed"

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.description = build_parser().description
        return parser
