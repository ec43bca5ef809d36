"""The production topology: compose.yaml's own worker command (prefork pool,
daemonic pool processes) runs the demo MSD analysis with its report, and the
report is the one this process draws for the same run.

Run with `make faults` (tests/faults/stack.py).
"""

from __future__ import annotations

import pytest

from analysis.run_report import render_run_report
from analysis.services import registered_design, results_frame, start_analysis
from demo.accounts import ensure_demo_accounts, ensure_demo_call
from demo.load import load_demo_challenges
from demo.story import MSD_SCHEME, commit_msd_results, register_demo
from tests.faults.conftest import compose_worker_command, run_state, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_suite_starts_workers_with_composes_prefork_command():
    command = compose_worker_command()
    assert command[:4] == ["celery", "-A", "config", "worker"]
    assert not any(arg.startswith("--pool") for arg in command)  # prefork
    assert "--concurrency=2" in command


def test_compose_worker_runs_the_msd_demo_with_the_report_drawn_here_too(
    workers, media
):
    users = ensure_demo_accounts(ensure_demo_call())
    msd, _ = load_demo_challenges(ensure_demo_call(), users)
    registration = register_demo(msd, users, lambda task: MSD_SCHEME)
    results = commit_msd_results(registration, users["organizer"])
    workers.start(ANALYSIS_REPORT_FIGURES="1")

    run = start_analysis(results=results, actor=users["organizer"])
    wait_for(
        lambda: run_state(run.pk).status in ("done", "failed"),
        seconds=600,
        every=2,
        what="the MSD demo analysis and its report finish",
    )

    run = run_state(run.pk)
    assert (run.status, run.error) == ("done", ""), workers.logs()[-3000:]
    here = render_run_report(
        run,
        frame=results_frame(results),
        design=registered_design(results),
        figures=True,
    )
    stored = (media / run.report.name).read_bytes()
    assert len(stored) > 100_000  # the figures are in it
    assert stored == here
