"""Chunk-addressable bootstrap: blocks computed anywhere, merged in block order,
give the single-process output byte for byte."""

import itertools
import json
import random

import numpy as np
import pandas as pd
import pytest

from ranking import (
    BOOTSTRAP_BLOCK,
    bootstrap_block_ranks,
    prepare_analysis,
    run_analysis,
)
from ranking.bootstrap import block_counts

from .conftest import frame_from

N_BOOT = 2 * BOOTSTRAP_BLOCK + 37  # three blocks, the last one partial


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    parts = []
    for task, shift in (("Brain", 0.0), ("Heart", 0.05)):
        values = rng.random((12, 4)) + shift
        values[:, 0] += 0.1
        for metric in ("DSC", "NSD"):
            parts.append(frame_from(values, task=task, metric=metric))
    return pd.concat(parts, ignore_index=True)


SCHEMES = {
    "aggregate": {
        "metric": ["DSC", "NSD"],
        "higher_is_better": True,
        "method": "aggregate_then_rank",
        "consensus": "mean_rank",
    },
    "tests_combined": {
        "metric": ["DSC", "NSD"],
        "higher_is_better": True,
        "method": "test_then_rank",
        "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "holm"},
        "combine": "mean_rank",
    },
}


def _dumps(result) -> str:
    return json.dumps(result.to_json_dict(), sort_keys=True)


def _partition(n_blocks: int, rng: random.Random) -> list[range]:
    """Consecutive block ranges of random lengths covering range(n_blocks)."""
    cuts = sorted(rng.sample(range(1, n_blocks), rng.randint(0, n_blocks - 1)))
    bounds = [0, *cuts, n_blocks]
    return [range(a, b) for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("name", sorted(SCHEMES))
@pytest.mark.parametrize("order_seed", [0, 1, 2])
def test_bootstrap_blocks_in_any_order_and_partition_equal_single_process(
    name, order_seed
):
    frame, scheme = _frame(), SCHEMES[name]
    single = run_analysis(frame, scheme, bootstrap=N_BOOT, seed=11)
    prepared = prepare_analysis(frame, scheme, bootstrap=N_BOOT, seed=11)
    rng = random.Random(order_seed)
    jobs = [
        (key, task, blocks)
        for key in prepared.keys
        for task in prepared.task_names
        for blocks in _partition(prepared.n_blocks, rng)
    ]
    rng.shuffle(jobs)  # computed in any order, e.g. by several workers
    computed = {
        job: bootstrap_block_ranks(prepared, key=job[0], task=job[1], blocks=job[2])
        for job in jobs
    }
    merged = {
        (key, task): np.concatenate(
            [
                ranks
                for (k, t, blocks), ranks in sorted(
                    computed.items(), key=lambda item: item[0][2].start
                )
                if (k, t) == (key, task)
            ]
        )
        for key in prepared.keys
        for task in prepared.task_names
    }

    chunked = run_analysis(
        frame, scheme, bootstrap=N_BOOT, seed=11, bootstrap_ranks=merged
    )

    assert prepared.n_blocks == 3
    assert _dumps(chunked) == _dumps(single)


def test_bootstrap_block_ranks_do_not_depend_on_the_other_blocks():
    prepared = prepare_analysis(
        _frame(), SCHEMES["aggregate"], bootstrap=N_BOOT, seed=5
    )
    whole = bootstrap_block_ranks(prepared, key="DSC", task="Heart")
    last = bootstrap_block_ranks(prepared, key="DSC", task="Heart", blocks=range(2, 3))
    assert whole.shape == (N_BOOT, 4)
    assert last.shape == (37, 4)
    np.testing.assert_array_equal(whole[2 * BOOTSTRAP_BLOCK :], last)


def test_bootstrap_same_seed_gives_same_output():
    frame, scheme = _frame(), SCHEMES["aggregate"]
    one = run_analysis(frame, scheme, bootstrap=N_BOOT, seed=4)
    two = run_analysis(frame, scheme, bootstrap=N_BOOT, seed=4)
    assert _dumps(one) == _dumps(two)


def test_bootstrap_different_seed_gives_different_draws_and_output():
    frame, scheme = _frame(), SCHEMES["aggregate"]
    one = run_analysis(frame, scheme, bootstrap=N_BOOT, seed=4).to_json_dict()
    two = run_analysis(frame, scheme, bootstrap=N_BOOT, seed=5).to_json_dict()
    first = np.concatenate(list(block_counts(12, N_BOOT, seed=4, task="T", block=0)))
    other = np.concatenate(list(block_counts(12, N_BOOT, seed=5, task="T", block=0)))
    assert not np.array_equal(first, other)
    boot_one = {t: b["bootstrap"] for t, b in one["rankings"]["DSC"]["tasks"].items()}
    boot_two = {t: b["bootstrap"] for t, b in two["rankings"]["DSC"]["tasks"].items()}
    assert boot_one != boot_two


def test_bootstrap_blocks_of_a_task_draw_different_samples():
    block0 = np.concatenate(list(block_counts(12, N_BOOT, seed=4, task="T", block=0)))
    block1 = np.concatenate(list(block_counts(12, N_BOOT, seed=4, task="T", block=1)))
    other = np.concatenate(list(block_counts(12, N_BOOT, seed=4, task="U", block=0)))
    assert block0.shape == block1.shape == (BOOTSTRAP_BLOCK, 12)
    assert (block0.sum(axis=1) == 12).all()
    assert not np.array_equal(block0, block1)
    assert not np.array_equal(block0, other)


def test_bootstrap_block_ranks_refuses_blocks_out_of_range():
    prepared = prepare_analysis(_frame(), SCHEMES["aggregate"], bootstrap=50, seed=1)
    with pytest.raises(ValueError, match=r"within range\(1\)"):
        bootstrap_block_ranks(prepared, key="DSC", task="Brain", blocks=range(0, 2))
    with pytest.raises(ValueError, match="key 'HD' is not one of"):
        bootstrap_block_ranks(prepared, key="HD", task="Brain")
    with pytest.raises(KeyError, match="no task 'Lung'"):
        bootstrap_block_ranks(prepared, key="DSC", task="Lung")


def test_run_analysis_refuses_incomplete_or_misshapen_bootstrap_ranks():
    frame, scheme = _frame(), SCHEMES["aggregate"]
    prepared = prepare_analysis(frame, scheme, bootstrap=50, seed=1)
    ranks = {
        (k, t): bootstrap_block_ranks(prepared, key=k, task=t)
        for k in prepared.keys
        for t in prepared.task_names
    }
    partial = {k: v for k, v in ranks.items() if k != ("NSD", "Heart")}
    with pytest.raises(ValueError, match=r"missing \[\('NSD', 'Heart'\)\]"):
        run_analysis(frame, scheme, bootstrap=50, seed=1, bootstrap_ranks=partial)
    short = {**ranks, ("DSC", "Brain"): ranks[("DSC", "Brain")][:10]}
    with pytest.raises(ValueError, match=r"has shape \(10, 4\), expected \(50, 4\)"):
        run_analysis(frame, scheme, bootstrap=50, seed=1, bootstrap_ranks=short)
    with pytest.raises(ValueError, match="needs a seed"):
        run_analysis(frame, scheme, bootstrap=50, bootstrap_ranks=ranks)
