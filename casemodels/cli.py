"""Command line (contract §4): ``casemodel RESULTS.csv --metadata META.csv
--spec SPEC.json --output OUT.json [--scheme SCHEME.json]``.

Exit status 0 on success; 2 with a one-line ``error: …`` naming the problem
(unknown column, unknown task, a characteristic with one level, …) otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ranking import ResultsError, read_results

from ._budget import DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_SECONDS
from .errors import CaseModelError
from .metadata import read_metadata
from .run import (
    DEFAULT_MAX_CROSSED_LEVELS,
    DEFAULT_MAX_GROUPINGS,
    DEFAULT_MAX_TERMS,
    fit_case_models,
)

__all__ = ["build_parser", "main"]


def build_parser(prog: str = "casemodel") -> argparse.ArgumentParser:
    """The argument parser (shared with ``manage.py casemodel``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Fit mixed models of case characteristics (which properties "
        "of a test case make algorithms fail).",
    )
    parser.add_argument("results", help="results table (CSV, or .xlsx)")
    parser.add_argument(
        "--metadata", required=True, help="case metadata table (CSV, or .xlsx)"
    )
    parser.add_argument("--spec", required=True, help="model specification (JSON)")
    parser.add_argument("--output", required=True, help="write the output JSON here")
    parser.add_argument(
        "--scheme", default=None, help='ranking scheme (JSON), for {"top": k}'
    )
    # "%(default)" in the help: manage.py casemodel sets the settings' bounds.
    bounds = (
        ("--max-terms", int, DEFAULT_MAX_TERMS, "fixed effects of a model"),
        (
            "--max-crossed-levels",
            int,
            DEFAULT_MAX_CROSSED_LEVELS,
            "levels of all groupings but the largest",
        ),
        ("--max-groupings", int, DEFAULT_MAX_GROUPINGS, "groupings of the spec"),
        (
            "--max-iterations",
            int,
            DEFAULT_MAX_ITERATIONS,
            "evaluations of each model's criterion before the fit stops",
        ),
        (
            "--max-seconds",
            float,
            DEFAULT_MAX_SECONDS,
            "wall time of all fits before they stop",
        ),
    )
    for flag, kind, default, what in bounds:
        parser.add_argument(
            flag, type=kind, default=default, help=f"{what} (default %(default)g)"
        )
    return parser


def _load_json(path: str, what: str):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise CaseModelError(f"{what} {path}: not valid JSON ({exc.msg})") from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 2 bad input)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage message
        return int(exc.code or 0)
    try:
        spec = _load_json(args.spec, "specification")
        scheme = _load_json(args.scheme, "scheme") if args.scheme else None
        results = read_results(args.results)
        metadata = read_metadata(args.metadata)
        output = fit_case_models(
            results,
            metadata,
            spec,
            scheme=scheme,
            max_terms=args.max_terms,
            max_crossed_levels=args.max_crossed_levels,
            max_groupings=args.max_groupings,
            max_iterations=args.max_iterations,
            max_seconds=args.max_seconds,
        )
        text = json.dumps(output, indent=2, allow_nan=False, ensure_ascii=False)
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    return 0
