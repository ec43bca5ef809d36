"""``manage.py report RESULTS.csv --scheme SCHEME.json --output report.pdf
[--bootstrap N] [--seed S]``: the PDF report for organizers who only want the
report. No database: the results are read from the file, the title page says
"not registered" and no deviations are checked."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis.reports import TitleInfo, build_report_data, render_report_pdf
from ranking import read_results, run_analysis

NOT_REGISTERED = "not registered"


def engine_version() -> str:
    """The installed project version (the engine ships with the project)."""
    from importlib import metadata

    try:
        return metadata.version("challenge-registry")
    except metadata.PackageNotFoundError:
        return "0.1.0"


class Command(BaseCommand):
    help = "Rank challenge results and write the PDF report (no database needed)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser) -> None:
        parser.add_argument("results", help="results table (CSV, or .xlsx)")
        parser.add_argument("--scheme", required=True, help="ranking scheme (JSON)")
        parser.add_argument("--output", required=True, help="where to write the PDF")
        parser.add_argument(
            "--bootstrap", type=int, default=None, help="bootstrap samples"
        )
        parser.add_argument("--seed", type=int, default=None, help="random seed")
        parser.add_argument(
            "--title", default=None, help="challenge name (default: file name)"
        )

    def handle(self, *args, **options) -> None:
        scheme_path = options["scheme"]
        try:
            with open(scheme_path, encoding="utf-8") as fh:
                scheme = json.load(fh)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{scheme_path}: not valid JSON ({exc})") from exc
        except OSError as exc:
            raise CommandError(f"{scheme_path}: {exc.strerror or exc}") from exc
        try:
            frame = read_results(options["results"])
            result = run_analysis(
                frame, scheme, bootstrap=options["bootstrap"], seed=options["seed"]
            )
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        output = result.to_json_dict()
        title = TitleInfo(
            challenge_name=options["title"] or Path(options["results"]).stem,
            registration_identifier=NOT_REGISTERED,
            registration_version=NOT_REGISTERED,
            registration_hash=NOT_REGISTERED,
            results_version=Path(options["results"]).name,
            results_hash=_sha256(options["results"]),
            engine_version=engine_version(),
            date=datetime.date.today().isoformat(),
            seed=output["scheme"]["uncertainty"]["seed"],
            exploratory=False,
        )
        data = build_report_data(frame, output, title=title, deviations=())
        pdf = render_report_pdf(data)
        try:
            Path(options["output"]).write_bytes(pdf)
        except OSError as exc:
            raise CommandError(f"{options['output']}: {exc.strerror or exc}") from exc
        self.stdout.write(f"Wrote {options['output']} ({len(pdf)} bytes).")


def _sha256(path: str) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
