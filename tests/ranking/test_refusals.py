"""The example bad files of docs/ranking-engine.md each produce the documented
message (the table is the single source: a changed message fails here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ranking.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "ranking-engine.md"
SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "method": "aggregate_then_rank",
    "missing": {"policy": "ignore"},
    "uncertainty": {"bootstrap": 0},
}


def _documented_examples() -> list[tuple[str, str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Refusals: example bad files and their messages")[1]
    examples = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| problem"):
            continue
        name, file_cell, message = (c.strip() for c in line.strip("| ").split(" | "))
        content = file_cell.strip("`").strip().replace("⏎", "\n")
        examples.append((name, content + "\n" if content else "", message.strip("`")))
    return examples


EXAMPLES = _documented_examples()


def _refusal(tmp_path, monkeypatch, capsys, results: bytes | str, scheme) -> str:
    monkeypatch.chdir(tmp_path)
    data = results.encode("utf-8") if isinstance(results, str) else results
    Path("results.csv").write_bytes(data)
    Path("scheme.json").write_text(
        scheme if isinstance(scheme, str) else json.dumps(scheme), encoding="utf-8"
    )
    code = main(["results.csv", "--scheme", "scheme.json"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    return err.removeprefix("error: ")


def test_documentation_lists_the_example_bad_files():
    assert len(EXAMPLES) >= 12


@pytest.mark.parametrize(
    ("content", "message"),
    [(c, m) for _, c, m in EXAMPLES],
    ids=[n for n, _, _ in EXAMPLES],
)
def test_example_bad_file_gives_documented_message(
    tmp_path, monkeypatch, capsys, content, message
):
    assert _refusal(tmp_path, monkeypatch, capsys, content, SCHEME) == message


RESULTS = "task,case,algorithm,metric,value\nT,1,A,DSC,0.9\nT,1,B,DSC,0.7\n"


@pytest.mark.parametrize(
    ("results", "scheme", "message"),
    [
        pytest.param(
            b"task,case,algorithm,metric,value\nT,1,A,DSC,0.9\nT,1,B,DSC,\xe90.7\n",
            SCHEME,
            "results.csv: invalid results table: line 3: the file is not UTF-8 text "
            "(found byte 0xe9); expected UTF-8: save it as 'CSV UTF-8' (in a "
            "spreadsheet: Save as > CSV UTF-8)",
            id="file not UTF-8: names line and byte",
        ),
        pytest.param(
            RESULTS,
            {**SCHEME, "method": "agregate_then_rank"},
            "scheme.json: scheme field method: must be one of 'aggregate_then_rank', "
            "'rank_then_aggregate', 'test_then_rank', got 'agregate_then_rank'; did "
            "you mean 'aggregate_then_rank'?",
            id="scheme typo: names file, field and likely value",
        ),
    ],
)
def test_refusal_message(tmp_path, monkeypatch, capsys, results, scheme, message):
    assert _refusal(tmp_path, monkeypatch, capsys, results, scheme) == message


@pytest.mark.parametrize(
    ("results", "scheme", "start"),
    [
        pytest.param(
            RESULTS,
            '{"metric": "DSC",}',
            "scheme.json: not valid JSON: Expecting property name enclosed in double "
            "quotes at line 1, column 18; expected a ranking scheme object",
            id="scheme not JSON: names the position",
        ),
        pytest.param(
            "task,case,algorithm,metric,value\n\nT,1,A,DSC,0.9\n\nT,1,B,DSC,x\n",
            SCHEME,
            "results.csv: invalid results table: line 5: value 'x'",
            id="blank lines keep the file's line numbers",
        ),
    ],
)
def test_refusal_message_begins(tmp_path, monkeypatch, capsys, results, scheme, start):
    assert _refusal(tmp_path, monkeypatch, capsys, results, scheme).startswith(start)
