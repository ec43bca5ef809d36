"""``manage.py plan SPEC.json|- [--output OUT.json]``: the test-set planner's
command line (``python -m ranking plan``), unchanged (no database)."""

from __future__ import annotations

from ranking.cli import build_plan_parser, plan_main

from ..wrapped_cli import WrappedCliCommand


class Command(WrappedCliCommand):
    help = (
        "Plan the test set: ranking stability for each number of test cases "
        "(no database needed)."
    )
    build_parser = staticmethod(build_plan_parser)
    run = staticmethod(plan_main)
    failure = "planning failed"
