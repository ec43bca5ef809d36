"""The command line end to end on temporary files."""

import json
import subprocess
import sys

from ranking.cli import main

from .conftest import frame_from

SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "value", "value": 0},
    "method": "test_then_rank",
    "uncertainty": {"bootstrap": 10, "seed": 1},
}


def _write(tmp_path, values=((0.9, 0.5, 0.1), (0.8, 0.6, float("nan")))):
    csv = tmp_path / "results.csv"
    frame_from([list(v) for v in values]).to_csv(csv, index=False)
    scheme = tmp_path / "scheme.json"
    scheme.write_text(json.dumps(SCHEME))
    return csv, scheme


def test_cli_writes_output_file(tmp_path):
    csv, scheme = _write(tmp_path)
    out = tmp_path / "out.json"
    code = main(
        [str(csv), "--scheme", str(scheme), "--seed", "4", "--output", str(out)]
    )
    data = json.loads(out.read_text())
    assert code == 0
    assert data["scheme"]["uncertainty"]["seed"] == 4
    assert set(data["rankings"]["DSC"]["tasks"]["T1"]["ranks"]) == {"A1", "A2", "A3"}


def test_cli_prints_to_stdout(tmp_path, capsys):
    csv, scheme = _write(tmp_path)
    code = main([str(csv), "--scheme", str(scheme), "--bootstrap", "0"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert "bootstrap" not in data["rankings"]["DSC"]["tasks"]["T1"]


def test_cli_bad_results_exit_2_with_message(tmp_path, capsys):
    csv, scheme = _write(tmp_path)
    csv.write_text("task,case,algorithm,value\nT,1,A,0.5\n")
    code = main([str(csv), "--scheme", str(scheme)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(
        f"error: {csv}: invalid results table: line 1: missing required column "
        "'metric'; the header has 'task', 'case', 'algorithm', 'value'"
    )


def test_cli_bad_scheme_exit_2_names_field(tmp_path, capsys):
    csv, scheme = _write(tmp_path)
    scheme.write_text(json.dumps({**SCHEME, "ties": "first"}))
    code = main([str(csv), "--scheme", str(scheme)])
    assert code == 2
    assert "ties: must be one of" in capsys.readouterr().err


def test_cli_missing_file_exit_2(tmp_path, capsys):
    code = main([str(tmp_path / "nope.csv"), "--scheme", str(tmp_path / "x.json")])
    assert code == 2
    assert capsys.readouterr().err.startswith("error:")


def test_cli_runs_as_module(tmp_path):
    csv, scheme = _write(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ranking", str(csv), "--scheme", str(scheme)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rankings"]["DSC"]["tasks"]["T1"]["ranks"]["A1"] == 1
