"""``manage.py casemodel`` runs without a database (contract §4)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

REFERENCE = Path(__file__).parent / "reference" / "linear_crossed"
ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path, spec_path):
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"}
    return subprocess.run(
        [
            sys.executable,
            "manage.py",
            "casemodel",
            str(REFERENCE / "results.csv"),
            "--metadata",
            str(REFERENCE / "metadata.csv"),
            "--spec",
            str(spec_path),
            "--output",
            str(tmp_path / "out.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )


def test_manage_casemodel_writes_the_output_without_a_database(tmp_path):
    done = _run(tmp_path, REFERENCE / "spec.json")
    assert done.returncode == 0, done.stderr
    out = json.loads((tmp_path / "out.json").read_text())
    assert [m["scope"] for m in out["models"]] == ["global"] + ["algorithm"] * 4


def test_manage_casemodel_names_the_problem(tmp_path):
    spec = json.loads((REFERENCE / "spec.json").read_text())
    spec["task"] = "Liver"
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    done = _run(tmp_path, tmp_path / "spec.json")
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("CommandError: unknown task 'Liver'")
    )


def _call(tmp_path, *extra):
    call_command(
        "casemodel",
        str(REFERENCE / "results.csv"),
        "--metadata",
        str(REFERENCE / "metadata.csv"),
        "--spec",
        str(REFERENCE / "spec.json"),
        "--output",
        str(tmp_path / "out.json"),
        *extra,
    )


def test_manage_casemodel_stops_at_the_settings_iteration_bound(tmp_path, settings):
    # The job's bound, not the engine's default of 20 000 (which this fit meets).
    settings.CASE_MODEL_MAX_ITERATIONS = 3
    with pytest.raises(CommandError, match=r"did not converge in 3 iterations"):
        _call(tmp_path)
    assert not (tmp_path / "out.json").exists()


def test_manage_casemodel_refuses_more_groupings_than_the_setting(tmp_path, settings):
    settings.CASE_MODEL_MAX_GROUPINGS = 1
    with pytest.raises(CommandError, match=r"names 2 groupings; the limit is 1"):
        _call(tmp_path)


def test_manage_casemodel_option_overrides_the_setting(tmp_path, settings):
    settings.CASE_MODEL_MAX_ITERATIONS = 3
    _call(tmp_path, "--max-iterations", "20000")
    assert json.loads((tmp_path / "out.json").read_text())["models"]
