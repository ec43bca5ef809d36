"""``manage.py report RESULTS.csv --scheme SCHEME.json --output report.pdf
[--bootstrap N] [--seed S]``: the PDF report for organizers who only want the
report. No database: the results are read from the file, the title page says
"not registered" and no deviations are checked. Where the report only
summarises a long descriptive-statistics appendix, the full table is written
beside the PDF (``report.statistics.csv`` for ``report.pdf``).

The analysis runs in a forked process (where the platform forks) while this
one imports the figure and PDF modules and draws the figures that need only
the ranks (see ``_while_it_runs``)."""

from __future__ import annotations

import dataclasses
import datetime
import gc
import json
import multiprocessing
import signal
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pandas as pd
from django.core.management.base import BaseCommand, CommandError

from ranking import (
    parse_scheme,
    read_results,
    run_analysis,
    scheme_to_dict,
    validate_results,
)
from ranking.version import ENGINE_VERSION
from registry.canonical import file_sha256

NOT_REGISTERED = "not registered"


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
            # parsed and checked once: the analysis, figures and tables share it
            frame = validate_results(read_results(options["results"]))
            analysis = AnalysisProcess(
                frame, scheme, bootstrap=options["bootstrap"], seed=options["seed"]
            )
            try:
                drawn = _while_it_runs(frame, scheme, analysis)
                output = analysis.output()
            finally:
                analysis.close()
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        from analysis.reports import (
            TitleInfo,
            build_report_data,
            render_report_pdf,
            report_tables,
        )

        title = TitleInfo(
            challenge_name=options["title"] or Path(options["results"]).stem,
            registration_identifier=NOT_REGISTERED,
            registration_version=NOT_REGISTERED,
            registration_hash=NOT_REGISTERED,
            results_version=Path(options["results"]).name,
            results_hash=file_sha256(Path(options["results"])),
            engine_version=ENGINE_VERSION,  # as the registry's analyses store it
            date=datetime.date.today().isoformat(),
            seed=output["scheme"]["uncertainty"]["seed"],
            exploratory=False,
            registered=False,
        )
        data = build_report_data(frame, output, title=title, deviations=(), drawn=drawn)
        # a long statistics appendix is summarised in the PDF: the full table
        # is written beside it
        statistics = Path(options["output"]).with_suffix(".statistics.csv")
        data = dataclasses.replace(
            data,
            statistics_download=f"The full table is the file {statistics.name},"
            " written beside this report.",
        )
        pdf = render_report_pdf(data)
        try:
            Path(options["output"]).write_bytes(pdf)
            if data.statistics_summarised:
                rows = report_tables(output, statistics=data.statistics)
                table = pd.DataFrame(rows["descriptive_statistics"])
                table.to_csv(statistics, index=False)
        except OSError as exc:
            raise CommandError(f"{options['output']}: {exc.strerror or exc}") from exc
        self.stdout.write(f"Wrote {options['output']} ({len(pdf)} bytes).")
        if data.statistics_summarised:
            self.stdout.write(f"Wrote {statistics} (descriptive statistics).")


class AnalysisProcess:
    """The engine's analysis of `frame`, run in a forked process where the
    platform forks (here otherwise): :meth:`output` waits for the output
    (JSON data) and raises the engine's error (ValueError) if it failed."""

    def __init__(
        self,
        frame: pd.DataFrame,
        scheme: Any,
        *,
        bootstrap: int | None,
        seed: int | None,
    ):
        def compute() -> dict[str, Any]:
            result = run_analysis(frame, scheme, bootstrap=bootstrap, seed=seed)
            return result.to_json_dict()

        self.forked = "fork" in multiprocessing.get_all_start_methods()
        if not self.forked:
            self._result = ("output", compute())
            return
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        # forked: the frame and the closure are inherited, never pickled
        self._process = context.Process(
            target=_analyse, args=(compute, send), daemon=True
        )
        self._process.start()
        send.close()
        self._result: tuple[str, Any] | None = None

    def ready(self) -> bool:
        return self._result is not None or self._receive.poll()

    def output(self) -> dict[str, Any]:
        if self._result is None:
            try:
                self._result = self._receive.recv()
            except EOFError:  # it ended without sending anything
                pass
            finally:
                self.close()
            if self._result is None:
                self._result = ("stopped", _how_it_ended(self._process.exitcode))
        kind, value = self._result
        if kind == "error":
            raise ValueError(value)
        if kind == "stopped":
            raise CommandError(f"The analysis process {value}; no report was written.")
        if kind == "crash":
            raise RuntimeError(f"The analysis failed: {value}")
        return value

    def close(self) -> None:
        """End the process (at once if it still runs: its caller gave up)."""
        if self.forked and self._process.pid is not None:
            self._receive.close()
            if self._process.is_alive():
                self._process.terminate()
            self._process.join()


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"was stopped by {name} (killed, or out of memory)"
    return f"ended without a result (exit code {exitcode})"


def _analyse(compute: Callable[[], dict[str, Any]], send: Connection) -> None:
    """The forked process: the output, or the error as text. The inherited
    heap is frozen: garbage collections scan only what the analysis makes."""
    gc.freeze()
    try:
        message = ("output", compute())
    except (OSError, ValueError) as exc:
        message = ("error", str(exc))
    except Exception:
        message = ("crash", traceback.format_exc())
    send.send(message)
    send.close()


def _while_it_runs(frame: pd.DataFrame, scheme: Any, analysis: AnalysisProcess) -> dict:
    """Work that does not wait for the analysis, done on the other CPU while
    it runs: import the figure and PDF modules, rank without bootstrap, rank
    intervals and audit (a fraction of the analysis) and draw the case-level
    figures, which depend on the ranks only, until the analysis is done. The
    report takes a figure only where the full analysis gives the same ranks."""
    from analysis.reports import draw_case_figures

    if not analysis.forked:
        return {}
    # rank intervals (pairwise tests at 40 algorithms) do not move the ranks
    plain = scheme_to_dict(parse_scheme(scheme))
    plain["uncertainty"] = {**plain["uncertainty"], "rank_ci": []}
    quick = run_analysis(
        frame, plain, bootstrap=0, seed=0, leave_one_out=False, audit=False
    )
    return draw_case_figures(frame, quick.to_json_dict(), stop=analysis.ready)


def _sha256(path: str) -> str:
    return file_sha256(Path(path))
