"""``manage.py report`` and ``manage.py rank`` end to end, without a database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from ranking import read_results, run_analysis, simulate
from ranking.version import ENGINE_VERSION

from .conftest import pdf_pages

ROOT = Path(__file__).resolve().parents[3]
SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "aggregate_then_rank",
    "uncertainty": {"bootstrap": 5, "seed": 3, "rank_ci": ["id_nemenyi"]},
}


@pytest.fixture
def files(tmp_path):
    csv = tmp_path / "results.csv"
    simulate.c_ideal(n_cases=8).to_csv(csv, index=False)
    scheme = tmp_path / "scheme.json"
    scheme.write_text(json.dumps(SCHEME))
    return csv, scheme


def report(csv: Path, scheme: Path, output: Path, *args: str, **options) -> None:
    """``manage.py report`` on the results and scheme files, writing `output`."""
    call_command(
        "report", str(csv), "--scheme", str(scheme), "--output", str(output),
        *args, **options,
    )  # fmt: skip


def test_report_command_writes_pdf(files, tmp_path):
    csv, scheme = files
    out = tmp_path / "report.pdf"
    stdout = StringIO()
    report(csv, scheme, out, "--bootstrap", "4", "--seed", "9", stdout=stdout)
    text = " ".join(pdf_pages(out.read_bytes()))
    assert "Wrote" in stdout.getvalue()
    assert "Registration identifier not registered" in text
    # nothing is registered, so nothing was compared: the report said "No
    # deviations from the registered design were found" under "Analysis
    # under the registered ranking scheme"
    assert "No deviations from the registered design were found." not in text
    assert "there is no registered design to compare with" in text
    assert "Analysis under the registered ranking scheme" not in text
    assert "Analysis Ranking scheme given with the results (not registered)" in text
    assert "Random seed 9" in text
    assert "Task T1 — ranking DSC" in text
    # the engine's version, as the web reports print it (was the package's 0.1.0)
    assert f"Ranking engine version {ENGINE_VERSION}" in text


def test_the_commands_analysis_process_returns_the_engine_output(files):
    from analysis.management.commands.report import AnalysisProcess

    frame = read_results(files[0])
    analysis = AnalysisProcess(frame, SCHEME, bootstrap=4, seed=9)
    assert analysis.forked  # Linux
    output = analysis.output()
    assert analysis.ready()
    expected = run_analysis(frame, SCHEME, bootstrap=4, seed=9).to_json_dict()
    assert output == expected
    bad = AnalysisProcess(frame, {**SCHEME, "method": "vote"}, bootstrap=4, seed=9)
    with pytest.raises(ValueError, match="method"):
        bad.output()


def test_report_command_says_when_its_analysis_process_was_killed(
    files, tmp_path, monkeypatch
):
    from analysis.management.commands import report as command

    here = os.getpid()

    def killed_in_the_fork(*args, **kwargs):
        if os.getpid() != here:
            os.kill(os.getpid(), signal.SIGKILL)
        return run_analysis(*args, **kwargs)  # the quick ranking beside it

    monkeypatch.setattr(command, "run_analysis", killed_in_the_fork)
    csv, scheme = files
    with pytest.raises(CommandError, match=r"was stopped by SIGKILL .*no report"):
        report(csv, scheme, tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()


def test_report_command_names_the_bad_scheme_field(files, tmp_path):
    csv, scheme = files
    scheme.write_text(json.dumps({**SCHEME, "method": "vote"}))
    with pytest.raises(CommandError, match="method"):
        report(csv, scheme, tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()


def test_report_command_names_the_bad_row(files, tmp_path):
    csv, scheme = files
    lines = csv.read_text().splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ",not-a-number"
    csv.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError, match="line 4"):
        report(csv, scheme, tmp_path / "r.pdf")


def test_report_command_rejects_invalid_json(files, tmp_path):
    csv, scheme = files
    scheme.write_text("{not json")
    with pytest.raises(CommandError, match="not valid JSON"):
        report(csv, scheme, tmp_path / "r.pdf")


def test_rank_command_writes_the_engine_output(files, tmp_path):
    csv, scheme = files
    out = tmp_path / "out.json"
    call_command(
        "rank", str(csv), "--scheme", str(scheme), "--seed", "5", "--output", str(out)
    )
    expected = run_analysis(read_results(csv), SCHEME, seed=5).to_json_dict()
    assert json.loads(out.read_text()) == expected


def test_rank_command_prints_to_stdout_without_output(files):
    csv, scheme = files
    stdout = StringIO()
    call_command("rank", str(csv), "--scheme", str(scheme), stdout=stdout)
    assert json.loads(stdout.getvalue())["scheme"]["uncertainty"]["seed"] == 3


def test_rank_command_keeps_message_and_exit_code(files):
    csv, scheme = files
    scheme.write_text(json.dumps({**SCHEME, "ties": "random"}))
    with pytest.raises(CommandError, match="ties") as info:
        call_command("rank", str(csv), "--scheme", str(scheme))
    assert info.value.returncode == 2


@pytest.mark.slow
def test_report_command_runs_without_a_database(files, tmp_path):
    csv, scheme = files
    out = tmp_path / "report.pdf"
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/no_such_database_report",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "report", str(csv), "--scheme", str(scheme),
         "--output", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes().startswith(b"%PDF")


@pytest.mark.slow
def test_rank_command_subprocess_exit_code_two_on_bad_input(files):
    csv, scheme = files
    scheme.write_text(json.dumps({**SCHEME, "ties": "random"}))
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/no_such_database_report",
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "rank", str(csv), "--scheme", str(scheme)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "ties" in done.stderr
