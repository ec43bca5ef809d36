import pytest

from ranking import SchemeError, describe_scheme, parse_scheme, scheme_to_dict
from tests.schemes import mean_scheme, msd_scheme

MSD = msd_scheme(
    uncertainty={"bootstrap": 1000, "seed": 1, "rank_ci": ["bootstrap"], "alpha": 0.05}
)


def test_parse_scheme_defaults_are_filled():
    executed = scheme_to_dict(parse_scheme(mean_scheme()))
    assert executed == {
        "metric": "DSC",
        "combine": None,
        "higher_is_better": True,
        "missing": None,
        "method": "aggregate_then_rank",
        "aggregate": "mean",
        "test": {
            "name": "wilcoxon",
            "alpha": 0.05,
            "p_adjust": "none",
            "method": "approx",
        },
        "ties": "min",
        "targets": "mean_rank",
        "consensus": None,
        "uncertainty": {"bootstrap": 1000, "seed": None, "rank_ci": [], "alpha": 0.05},
    }


def test_scheme_to_dict_roundtrip_is_stable():
    once = scheme_to_dict(parse_scheme(MSD))
    assert scheme_to_dict(parse_scheme(once)) == once
    assert once["missing"] == {"policy": "value", "value": 0.0}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"missing": {"policy": "value"}},
            "missing.value: required when missing.policy is 'value'",
        ),
        (
            {"missing": {"policy": "last_rank"}},
            "missing.policy: 'last_rank' only applies to rank_then_aggregate",
        ),
        (
            {"aggregate": {"quantile": 1.5}},
            "aggregate.quantile: must be between 0 and 1",
        ),
        ({"aggregate": "mode"}, "aggregate: must be one of"),
        ({"method": "vote"}, "method: must be one of"),
        ({"ties": "first"}, "ties: must be one of"),
        ({"test": {"p_adjust": "fdr"}}, "test.p_adjust: must be one of"),
        ({"test": {"alpha": 2}}, "test.alpha: must be a number between 0 and 1"),
        (
            {"uncertainty": {"bootstrap": -1}},
            "uncertainty.bootstrap: must be an integer",
        ),
        (
            {"uncertainty": {"rank_ci": ["magic"]}},
            "uncertainty.rank_ci: must be one of",
        ),
        ({"consensus": "borda"}, "consensus: must be one of"),
        ({"targets": "sum"}, "targets: must be one of"),
        ({"agregate": "mean"}, "agregate: unknown field"),
        ({"higher_is_better": "yes"}, "higher_is_better: must be true/false"),
    ],
)
def test_parse_scheme_error_names_field(changes, message):
    with pytest.raises(SchemeError) as info:
        parse_scheme(mean_scheme(**changes))
    assert str(info.value).startswith(message)


def test_parse_scheme_missing_method_is_named():
    with pytest.raises(SchemeError, match=r"^method: required"):
        parse_scheme({"metric": "DSC", "higher_is_better": True})


def test_parse_scheme_direction_per_metric_must_cover_all():
    with pytest.raises(SchemeError, match="no direction for metric 'HD'"):
        parse_scheme(mean_scheme(metric=["DSC", "HD"], higher_is_better={"DSC": True}))


def test_parse_scheme_last_rank_with_rank_then_aggregate_is_valid():
    scheme = parse_scheme(
        mean_scheme(method="rank_then_aggregate", missing={"policy": "last_rank"})
    )
    assert scheme.missing.policy == "last_rank"


def test_describe_scheme_gives_the_five_paragraphs():
    prose = describe_scheme(MSD)
    assert sorted(prose) == ["metrics", "missing", "ranking", "tests", "uncertainty"]
    assert (
        prose["missing"] == "A missing result is replaced by a fixed value: 0 for DSC."
    )
    assert prose["metrics"] == "Algorithms are ranked on DSC (higher is better)."
    assert "1000 bootstrap samples" in prose["uncertainty"]
    assert "without multiplicity adjustment" in prose["tests"]
