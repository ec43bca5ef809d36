"""``manage.py rank RESULTS.csv --scheme SCHEME.json [--bootstrap N] [--seed S]
[--output OUT.json]``: the engine's command line, unchanged (no database)."""

from __future__ import annotations

import contextlib
import io

from django.core.management.base import BaseCommand, CommandError

from ranking.cli import build_parser, main


class Command(BaseCommand):
    help = "Rank challenge results under a ranking scheme (no database needed)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.description = build_parser().description
        return parser

    def add_arguments(self, parser) -> None:
        for action in build_parser()._actions:
            if action.dest == "help":
                continue
            kwargs = {"help": action.help, "default": action.default}
            if action.option_strings:
                kwargs["required"] = action.required
                kwargs["dest"] = action.dest
                if action.type is not None:
                    kwargs["type"] = action.type
                parser.add_argument(*action.option_strings, **kwargs)
            else:
                parser.add_argument(action.dest, help=action.help)

    def handle(self, *args, **options) -> None:
        argv = [options["results"], "--scheme", options["scheme"]]
        for name in ("bootstrap", "seed", "output"):
            if options.get(name) is not None:
                argv += [f"--{name}", str(options[name])]
        errors = io.StringIO()
        with (
            contextlib.redirect_stdout(self.stdout),
            contextlib.redirect_stderr(errors),
        ):
            code = main(argv)
        if code != 0:
            message = errors.getvalue().strip().removeprefix("error: ")
            raise CommandError(message or "ranking failed", returncode=code)
