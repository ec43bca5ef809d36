"""ranking.vocabulary: every code the engine can emit has plain words."""

import pytest

from ranking import vocabulary
from ranking.scheme import (
    CONSENSUS_RULES,
    METHODS,
    MISSING_POLICIES,
    P_ADJUST,
    RANK_CI_METHODS,
    TARGET_RULES,
    TEST_METHODS,
    TIES,
)

SCHEME_CODES = {
    *METHODS,
    *MISSING_POLICIES,
    *TIES,
    *TARGET_RULES,
    *CONSENSUS_RULES,
    *P_ADJUST,
    *TEST_METHODS,
    *RANK_CI_METHODS,
    "mean",
    "median",
    "quantile",
}


@pytest.mark.parametrize("code", sorted(SCHEME_CODES))
def test_every_scheme_option_has_a_label_and_an_explanation(code):
    assert vocabulary.label(code) != code
    assert vocabulary.explanation(code).endswith(".")


def test_no_value_reads_as_a_dash_and_an_unknown_code_stays():
    # The audit's alternatives have no missing-data rule when none is registered.
    assert vocabulary.short_label(None) == vocabulary.NOTHING
    assert vocabulary.explanation(None) == ""
    assert vocabulary.label("a_new_code") == "a_new_code"


def test_short_label_drops_the_example():
    assert vocabulary.short_label("min") == "Minimum rank"
    assert vocabulary.field_label("test.p_adjust") == "Multiplicity adjustment"
    assert vocabulary.field_label("missing.value.DSC") == (
        "Value for a missing result: DSC"
    )
