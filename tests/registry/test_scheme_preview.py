"""The scheme preview on simulated data (no database)."""

from registry.scheme_preview import PREVIEW_BOOTSTRAP, preview_scheme


def test_preview_c_ideal_finds_the_true_order_for_either_direction():
    scheme = {
        "metric": ["DSC", "HD95"],
        "higher_is_better": {"DSC": True, "HD95": False},
        "method": "aggregate_then_rank",
        "uncertainty": {"bootstrap": 5000, "seed": 3, "rank_ci": ["bootstrap"]},
    }
    ideal, random = preview_scheme(scheme)
    assert ideal.name == "c_ideal"
    assert random.name == "c_random"
    assert ideal.bootstrap == PREVIEW_BOOTSTRAP  # capped
    for ranking in ideal.rankings:
        assert [r.algorithm for r in ranking.rows] == ["A1", "A2", "A3", "A4", "A5"]
        assert [r.rank for r in ranking.rows] == [1, 2, 3, 4, 5]
        assert ranking.rows[0].bootstrap["lower"] == ranking.rows[0].bootstrap["upper"]
        assert ranking.interval_methods == ("bootstrap",)
    assert [r.key for r in ideal.rankings] == ["DSC", "HD95"]


def test_preview_without_bootstrap_has_no_intervals():
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "rank_then_aggregate",
        "uncertainty": {"bootstrap": 0},
    }
    ideal, _ = preview_scheme(scheme)
    assert ideal.bootstrap == 0
    assert all(r.bootstrap is None for r in ideal.rankings[0].rows)
