"""The typed reader answers the same questions in both stored shapes: one
``scheme`` (the engine's output) and ``schemes`` (compute_output's merge)."""

import io

import pandas as pd
import pytest

from analysis.ingest import validated
from analysis.output import AnalysisOutput, TaskRanking
from analysis.services import compute_output
from tests.analysis.django.conftest import results_csv
from tests.analysis.django.test_chunked_analysis import AGGREGATE, TESTS


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    raw = results_csv(n_cases=12).decode()
    return validated(pd.read_csv(io.StringIO(raw), dtype=str, keep_default_na=False))


@pytest.fixture(scope="module")
def single(frame) -> dict:
    return compute_output(frame, {"Brain": AGGREGATE, "Heart": AGGREGATE}, seed=3)


@pytest.fixture(scope="module")
def merged(frame) -> dict:
    return compute_output(frame, {"Heart": TESTS, "Brain": AGGREGATE}, seed=3)


def test_the_two_shapes_are_what_the_reader_is_for(single, merged):
    assert ("scheme" in single, "schemes" in single) == (True, False)
    assert ("scheme" in merged, "schemes" in merged) == (False, True)


def test_single_scheme_answers(single):
    out = AnalysisOutput.of(single)
    assert out.keys == list(single["rankings"])
    assert out.scheme_of("Heart") == single["scheme"]
    assert out.scheme_of("Brain") == single["scheme"]
    assert out.scheme_groups() == [(["Brain", "Heart"], single["scheme"])]
    key = out.keys[0]
    assert out.consensus(key) == single["rankings"][key]["consensus"]
    assert out.consensus(key)["ranks"]
    assert out.ranking(key) is single["rankings"][key]
    assert list(out.tasks(key)) == list(single["rankings"][key]["tasks"])


def test_merged_schemes_answer_by_task(merged):
    out = AnalysisOutput.of(merged)
    assert out.scheme_of("Brain") == merged["schemes"]["Brain"]
    assert out.scheme_of("Heart") == merged["schemes"]["Heart"]
    assert out.scheme_of("Brain") != out.scheme_of("Heart")
    assert [tasks for tasks, _ in out.scheme_groups()] == [["Brain"], ["Heart"]]
    assert out.keys == ["DSC", "NSD"]
    assert list(out.tasks("DSC")) == ["Brain", "Heart"]
    assert list(out.tasks("NSD")) == ["Brain"]  # Heart ranks DSC only
    assert out.consensus("DSC") == {}  # the merge keeps no consensus


def test_entries_follow_the_stored_order_and_carry_the_stored_blocks(merged):
    out = AnalysisOutput.of(merged)
    entries = list(out.entries())
    assert [(e.key, e.task) for e in entries] == [
        (key, task)
        for key, ranking in merged["rankings"].items()
        for task in ranking["tasks"]
    ]
    first = entries[0]
    assert first.block is merged["rankings"][first.key]["tasks"][first.task]
    assert first.ranks is first.block["ranks"]
    assert out.entry(first.key, first.task) is first.block


def test_unknown_keys_and_tasks_read_as_absent(single):
    out = AnalysisOutput.of(single)
    assert out.ranking("nope") is None
    assert out.tasks("nope") == {}
    assert out.entry(out.keys[0], "nope") is None
    assert out.consensus("nope") == {}
    assert list(AnalysisOutput.of({}).entries()) == []


def test_targets_default_to_empty():
    entry = TaskRanking("DSC", "Brain", {"ranks": {"A1": 1}})
    assert entry.targets == {}
    with_targets = TaskRanking("DSC", "Brain", {"ranks": {}, "targets": {"t": {}}})
    assert with_targets.targets == {"t": {}}


def test_the_reader_does_not_change_the_output(merged):
    before = repr(merged)
    out = AnalysisOutput.of(merged)
    list(out.entries()), out.scheme_groups(), out.scheme_of("Brain")
    out.scheme_of("Brain")["method"] = "changed"
    assert repr(merged) == before
