"""The prose written into parameters 45–50 from a scheme never contradicts the
scheme (issue 28: "with Holm's adjustment" under an adjustment of "None")."""

from __future__ import annotations

from hypothesis import given, settings

from ranking import vocabulary
from ranking.scheme import describe_scheme, parse_scheme
from tests.schemes import mean_scheme, schemes

ADJUSTMENT_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni"}
MISSING_WORDS = {
    "value": "replaced by a fixed value",
    "ignore": "left out",
    "last_rank": "ranked below every present result",
}


def _no_code(sentences: dict[str, str]) -> None:
    for key, text in sentences.items():
        assert "_" not in text, (key, text)  # no raw code such as id_nemenyi


def _method_and_ties(scheme, ranking: str) -> None:
    assert ranking.startswith(vocabulary.short_label(scheme.method) + ":")
    others = [m for m in ("Aggregate then", "Rank then", "Test then") if m in ranking]
    assert len(others) == 1, ranking
    if scheme.method != "test_then_rank":
        if scheme.aggregate == "quantile":
            assert "% quantile" in ranking
        else:
            assert f"with the {scheme.aggregate}," in ranking
    assert ("consensus ranking over tasks" in ranking) == (scheme.consensus is not None)
    # Targets are structures of a task; the metrics are never called targets.
    assert "not metrics" in ranking


def _missing(scheme, missing: str) -> None:
    policy = scheme.missing.policy if scheme.missing else None
    for name, words in MISSING_WORDS.items():
        assert (words in missing) == (name == policy), (policy, missing)
    if policy is None:
        assert "No rule for missing results" in missing


def _tests(scheme, tests: str) -> None:
    adjust = scheme.test.p_adjust
    if scheme.method == "test_then_rank":
        for name, word in ADJUSTMENT_NAMES.items():
            assert (word in tests) == (name == adjust), (adjust, tests)
        assert ("without multiplicity adjustment" in tests) == (adjust == "none")
    else:
        # The map's Holm is the engine's fixed choice; a scheme that says
        # otherwise is told its own adjustment does not apply here.
        assert "Holm's adjustment" in tests
        disclaimer = (
            f"multiplicity adjustment ({vocabulary.label(adjust)}) applies to"
            " test-based ranking only"
        )
        assert (disclaimer in tests) == (adjust != "holm")
        assert ("Bonferroni" in tests) == (adjust == "bonferroni")


def _uncertainty(scheme, uncertainty: str) -> None:
    u = scheme.uncertainty
    assert (f"{u.bootstrap} bootstrap samples" in uncertainty) == (u.bootstrap > 0)
    for method in u.rank_ci:
        assert vocabulary.short_label(method) in uncertainty


@settings(max_examples=300, deadline=None)
@given(schemes())
def test_scheme_prose_agrees_with_the_scheme(data):
    scheme = parse_scheme(data)
    sentences = describe_scheme(data)
    _no_code(sentences)
    for metric in scheme.metrics:
        direction = "higher" if scheme.higher_is_better[metric] else "lower"
        assert f"{metric} ({direction} is better)" in sentences["metrics"]
    _method_and_ties(scheme, sentences["ranking"])
    _missing(scheme, sentences["missing"])
    _tests(scheme, sentences["tests"])
    _uncertainty(scheme, sentences["uncertainty"])


def test_no_adjustment_is_never_called_holm_without_saying_why():
    # The case of the issue: aggregate then rank, multiplicity adjustment None.
    tests = describe_scheme(mean_scheme(test={"p_adjust": "none"}))["tests"]
    assert "multiplicity adjustment (None) applies to test-based ranking only" in tests
