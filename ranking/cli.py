"""Command line: ``rank RESULTS.csv --scheme SCHEME.json [--bootstrap N]
[--seed S] [--output OUT.json]``, and ``rank plan SPEC.json|-`` (the
test-set planner, :mod:`ranking.planner`).

The output JSON (contract §3, or the plan of ``docs/ranking-engine.md``) goes
to ``--output`` or standard output; any problem with the input is printed to
standard error with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ._validation import read_table
from .run import run_analysis
from .scheme import SchemeError

__all__ = ["build_parser", "build_plan_parser", "main", "output_text", "plan_main"]


def build_parser(prog: str = "rank") -> argparse.ArgumentParser:
    """The argument parser (shared with the Django ``manage.py rank`` wrapper)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Rank challenge results under a registered ranking scheme.",
    )
    parser.add_argument("results", help="results table (CSV, or .xlsx)")
    parser.add_argument("--scheme", required=True, help="ranking scheme (JSON file)")
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=None,
        help="bootstrap samples (overrides scheme)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="random seed (overrides scheme)"
    )
    parser.add_argument(
        "--output", default=None, help="write the JSON here (default: stdout)"
    )
    return parser


def output_text(output: dict) -> str:
    """The bytes the command line writes for an output JSON (sorted keys, two
    spaces, a final newline): the published output of an analysis is served
    in exactly this form, so a re-run can be compared byte for byte."""
    return json.dumps(output, sort_keys=True, indent=2, allow_nan=False) + "\n"


def build_plan_parser(prog: str = "rank plan") -> argparse.ArgumentParser:
    """The planner's parser (shared with ``manage.py plan``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Plan the test set: ranking stability for each number of "
        "test cases, simulated under the task's ranking scheme.",
    )
    parser.add_argument("spec", help="plan specification (JSON file, or - for stdin)")
    parser.add_argument(
        "--output", default=None, help="write the JSON here (default: stdout)"
    )
    return parser


def _write(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def plan_main(argv: Sequence[str] | None = None) -> int:
    """``rank plan SPEC.json|-``; returns the exit code (0 ok, 2 bad input)."""
    from .planner import run_plan  # the planner's imports only when planning

    try:
        args = build_plan_parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    where = "standard input" if args.spec == "-" else args.spec
    try:
        if args.spec == "-":
            spec = json.load(sys.stdin)
        else:
            with open(args.spec, encoding="utf-8") as fh:
                spec = json.load(fh)
        plan = run_plan(spec)
    except json.JSONDecodeError as exc:
        print(
            f"error: {where}: not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}; expected a plan specification object "
            '{"scheme": ..., "model": ..., "n": [...], "simulations": R, "seed": S}',
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: {where}: {exc}", file=sys.stderr)
        return 2
    _write(output_text(plan), args.output)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["plan"]:
        return plan_main(args_list[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage message
        return int(exc.code or 0)
    try:
        with open(args.scheme, encoding="utf-8") as fh:
            scheme = json.load(fh)
        # read_table: no pandas for a small job, so it starts fast; the table
        # is handed over, not kept here, so the analysis can free it
        result = run_analysis(
            read_table(args.results),
            scheme,
            bootstrap=args.bootstrap,
            seed=args.seed,
        )
        text = output_text(result.to_json_dict())
    except json.JSONDecodeError as exc:
        print(
            f"error: {args.scheme}: not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}; expected a ranking scheme object such as "
            '{"metric": "DSC", "higher_is_better": true, "method": '
            '"aggregate_then_rank"}',
            file=sys.stderr,
        )
        return 2
    except SchemeError as exc:
        print(f"error: {args.scheme}: scheme field {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, NotImplementedError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _write(text, args.output)
    return 0
