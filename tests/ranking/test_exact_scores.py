"""Scores that are mathematically equal are equal (contract §2).

Relabelling the cases or reordering the rows of a results table never changes
any output number, and algorithms whose values are the same multiset tie.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranking import NonFiniteResultError, aggregate_then_rank, run_analysis
from ranking._exact import canonical_row_order, exact_means

# Values with deliberate ties: permutations of 0.1, 0.2, 0.3 have sums that
# differ in the last bit when added in row order.
VALUES = [0.1, 0.2, 0.3, 0.7, 1.0, 1e-17, 3.0, -0.5]


def _outcome(frame: pd.DataFrame, scheme: dict) -> str:
    try:
        output = run_analysis(frame, scheme).to_json_dict()
    except ValueError as exc:
        return f"error: {exc}"
    return json.dumps(output, sort_keys=True, allow_nan=False)


@st.composite
def results_and_scheme(draw):
    n_tasks = draw(st.integers(1, 2))
    m = draw(st.integers(2, 4))
    with_targets = draw(st.booleans())
    targets = ["t1", "t2"] if with_targets else [None]
    rows = []
    any_missing = False
    for t in range(n_tasks):
        n = draw(st.integers(2, 6))
        base = draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n))
        for target in targets:
            columns = []
            for _ in range(m):
                if draw(st.booleans()):  # a permutation of the shared column
                    columns.append(draw(st.permutations(base)))
                else:
                    columns.append(
                        draw(
                            st.lists(
                                st.sampled_from([*VALUES, math.nan]),
                                min_size=n,
                                max_size=n,
                            )
                        )
                    )
            for i in range(n):
                for j in range(m):
                    value = columns[j][i]
                    any_missing |= math.isnan(value)
                    row = {
                        "task": f"T{t}",
                        "case": f"c{i}",
                        "algorithm": f"A{j}",
                        "metric": "DSC",
                        "value": "" if math.isnan(value) else repr(value),
                    }
                    if target is not None:
                        row["target"] = target
                    rows.append(row)
    method = draw(
        st.sampled_from(
            ["aggregate_then_rank", "rank_then_aggregate", "test_then_rank"]
        )
    )
    policies = ["value", "ignore"] + (
        ["last_rank"] if method == "rank_then_aggregate" else []
    )
    policy = draw(st.sampled_from(policies))
    missing = (
        {"policy": policy, "value": 0.0} if policy == "value" else {"policy": policy}
    )
    scheme = {
        "metric": "DSC",
        "higher_is_better": draw(st.booleans()),
        "method": method,
        "missing": missing if (any_missing or draw(st.booleans())) else None,
        "aggregate": draw(st.sampled_from(["mean", "median", {"quantile": 0.25}])),
        "ties": draw(st.sampled_from(["min", "average", "max"])),
        "targets": draw(st.sampled_from(["mean_rank", "mean_average_rank"])),
        "consensus": draw(st.sampled_from([None, "mean_rank", "mean_average_rank"])),
        "uncertainty": {
            "bootstrap": draw(st.sampled_from([0, 7])),
            "seed": 5,
            "rank_ci": draw(
                st.sampled_from(
                    [
                        [],
                        [],
                        [],
                        ["bootstrap", "bootstrap_unpaired"],
                        ["id_wilcoxon_two_sided", "id_nemenyi"],
                        ["id_wilcoxon_one_sided", "anova_tukey"],
                    ]
                )
            ),
        },
    }
    frame = pd.DataFrame(rows)
    order = draw(st.permutations(range(len(frame))))
    cases = sorted(set(frame["case"]))
    new_names = draw(st.permutations([f"k{k}" for k in range(len(cases))]))
    relabel = dict(zip(cases, new_names, strict=True))
    changed = frame.iloc[list(order)].reset_index(drop=True)
    changed["case"] = changed["case"].map(relabel)
    return frame, changed, scheme


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(results_and_scheme())
def test_relabelling_cases_and_reordering_rows_changes_no_output_number(data):
    frame, changed, scheme = data

    assert _outcome(changed, scheme) == _outcome(frame, scheme)


def test_permutations_of_the_same_values_tie_in_every_aggregate():
    # 0.1 + 0.2 + 0.3 = 0.6000000000000001 but 0.3 + 0.2 + 0.1 = 0.6 in
    # floating point: summed in row order, A1 would beat A2.
    values = np.array([[0.1, 0.3, 0.2], [0.2, 0.2, 0.3], [0.3, 0.1, 0.1]])

    for aggregate in ("mean", "median"):
        result = aggregate_then_rank(values, aggregate=aggregate)
        assert result.scores[0] == result.scores[1] == result.scores[2]
        assert list(result.ranks) == [1, 1, 1]


def test_exact_mean_is_the_correctly_rounded_rational_mean():
    rng = np.random.default_rng(3)
    x = rng.normal(0, 1, (50, 4)) * 10.0 ** rng.integers(-200, 200, (50, 4))
    x[rng.random(x.shape) < 0.2] = np.nan
    x[0, 0] = 1.7e308  # the float sum of this column would overflow
    x[1, 0] = 1.7e308

    means = exact_means(x)

    for j in range(4):
        col = [Fraction(v) for v in x[:, j] if not np.isnan(v)]
        assert means[j] == float(sum(col) / len(col))


def test_equal_rational_means_of_different_counts_tie():
    # B holds A's three values three times: the same exact mean. Rounding the
    # sum first, then dividing, gives 0.14777777777777776 for A and
    # 0.14777777777777779 for B; the exact sum rounded once gives one value.
    a = [1 / 3, 0.1, 0.01]
    x = np.full((9, 2), np.nan)
    x[:3, 0] = a
    x[:, 1] = a * 3

    means = exact_means(x)

    assert math.fsum(a) / 3 != math.fsum(a * 3) / 9
    assert means[0] == means[1]
    assert list(aggregate_then_rank(x).ranks) == [1, 1]


def test_canonical_row_order_ignores_the_input_order():
    rng = np.random.default_rng(0)
    key = rng.choice([0.1, 0.2, np.nan], size=(30, 3))
    perm = rng.permutation(30)

    first = key[canonical_row_order(key)]
    second = key[perm][canonical_row_order(key[perm])]

    np.testing.assert_array_equal(first, second)


def test_values_near_the_float_limit_rank_by_their_exact_means():
    # Summed in floats, A's and B's totals overflow to inf and tie.
    x = np.array([[1.7e308, 1.6e308, 1.0], [1.5e308, 1.6e308, 2.0]])
    frame = pd.DataFrame(
        {
            "task": "T",
            "case": np.repeat(["c1", "c2"], 3),
            "algorithm": ["A", "B", "C"] * 2,
            "metric": "DSC",
            "value": x.ravel(),
        }
    )
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "uncertainty": {"bootstrap": 20, "seed": 1},
    }

    task = run_analysis(frame, scheme).to_json_dict()["rankings"]["DSC"]["tasks"]["T"]

    assert task["scores"] == {"A": 1.6e308, "B": 1.6e308, "C": 1.5}
    assert task["ranks"] == {"A": 1, "B": 1, "C": 3}
    assert task["bootstrap"]["C"]["freq"] == {"3": 1.0}


def test_overflow_without_exact_rescaling_is_refused_naming_everything():
    frame = pd.DataFrame(
        {
            "task": "Liver",
            "case": ["c1", "c1", "c2", "c2"],
            "algorithm": ["A", "B", "A", "B"],
            "metric": "HD",
            "value": [1.7e308, 5e-324, -1.7e308, 0.0],
        }
    )
    scheme = {"metric": "HD", "higher_is_better": False, "method": "test_then_rank"}

    with pytest.raises(NonFiniteResultError) as info:
        run_analysis(frame, scheme)

    assert info.value.metric == "HD"
    assert info.value.task == "Liver"
    assert info.value.algorithms == ("A",)
    assert str(info.value).startswith("metric 'HD', task 'Liver', algorithm(s) 'A': ")
