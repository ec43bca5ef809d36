"""A ``manage.py`` command that runs a plain-Python command line unchanged."""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable, Sequence

from django.core.management.base import BaseCommand, CommandError


class WrappedCliCommand(BaseCommand):
    """Runs `run` (a command line's ``main``) with the arguments of
    `build_parser`: the same arguments and help, its standard output as the
    command's, and an exit code other than 0 as a CommandError with the program's
    message and that code. No database needed (the engine's ``rank``, the case
    models' ``casemodel``)."""

    requires_system_checks: list[str] = []
    requires_migrations_checks = False
    build_parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[Sequence[str]], int]
    failure = "the command failed"  # the message when the program gives none

    def _actions(self) -> list[argparse.Action]:
        return [a for a in self.build_parser()._actions if a.dest != "help"]

    def add_arguments(self, parser) -> None:
        for action in self._actions():
            if not action.option_strings:
                parser.add_argument(action.dest, help=action.help)
                continue
            kwargs = {
                "help": action.help,
                "default": action.default,
                "required": action.required,
                "dest": action.dest,
            }
            if action.type is not None:
                kwargs["type"] = action.type
            parser.add_argument(*action.option_strings, **kwargs)

    def handle(self, *args, **options) -> None:
        argv = []
        for action in self._actions():
            value = options.get(action.dest)
            if not action.option_strings:
                argv.append(value)
            elif value is not None:
                argv += [action.option_strings[0], str(value)]
        errors = io.StringIO()
        with (
            contextlib.redirect_stdout(self.stdout),
            contextlib.redirect_stderr(errors),
        ):
            code = self.run(argv)
        if code != 0:
            message = errors.getvalue().strip().removeprefix("error: ")
            raise CommandError(message or self.failure, returncode=code)
