"""An analysis prepared for distributed bootstrap work.

:func:`prepare_analysis` fixes everything an analysis needs before ranking:
the executed scheme (bootstrap size and seed filled in), the per-task matrices
and the ranking keys. :func:`bootstrap_block_ranks` then computes the bootstrap
rankings of any range of replicate blocks of one (key, task); the blocks can be
computed in any order, on any machine, and their concatenation in block order
is what a single-process :func:`run_analysis` computes (seed 000, "Bootstrap
approach"; seed 004 §4.3). Hand the concatenated arrays back to
``run_analysis(..., bootstrap_ranks=...)`` to finish the analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._core import TaskData, build_tasks, key_task_ranking
from ._exact import NonFiniteResultError
from ._parallel import one_blas_thread
from ._validation import ResultsTable, validate_table
from .bootstrap import BOOTSTRAP_BLOCK, block_counts, n_blocks, resampled
from .scheme import Scheme, parse_scheme

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BOOTSTRAP_BLOCK",
    "PreparedAnalysis",
    "bootstrap_block_ranks",
    "prepare_analysis",
]


@dataclass(frozen=True)
class PreparedAnalysis:
    """The executed scheme and per-task matrices of one analysis.

    Attributes
    ----------
    scheme : Scheme
        The scheme as executed (effective bootstrap size and seed filled in).
    tasks : tuple of TaskData
        The tasks' matrices, sorted by task name.
    keys : tuple of str
        The ranking keys: the scheme's metrics, or ``("combined",)``.
    """

    scheme: Scheme
    tasks: tuple[TaskData, ...]
    keys: tuple[str, ...]

    @property
    def n_boot(self) -> int:
        """Bootstrap replicates per (key, task)."""
        return self.scheme.uncertainty.bootstrap

    @property
    def seed(self) -> int:
        """The seed every replicate block derives from."""
        assert self.scheme.uncertainty.seed is not None
        return self.scheme.uncertainty.seed

    @property
    def n_blocks(self) -> int:
        """Replicate blocks per (key, task) (``BOOTSTRAP_BLOCK`` replicates each)."""
        return n_blocks(self.n_boot)

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    def task(self, name: str) -> TaskData:
        """The matrices of task ``name`` (``KeyError`` when there is none)."""
        for task in self.tasks:
            if task.name == name:
                return task
        raise KeyError(f"no task {name!r} in the results")

    def bootstrap_work(self) -> int:
        """Replicates x cases x algorithms, summed over keys and tasks."""
        per_key = sum(len(t.cases) * len(t.algorithms) for t in self.tasks)
        return self.n_boot * per_key * len(self.keys)


def executed_scheme(
    parsed: Scheme, *, bootstrap: int | None, seed: int | None
) -> Scheme:
    """``parsed`` with the effective bootstrap size and seed filled in."""
    n_boot = parsed.uncertainty.bootstrap if bootstrap is None else int(bootstrap)
    if n_boot < 0:
        raise ValueError("bootstrap must be ≥ 0")
    eff_seed = seed if seed is not None else parsed.uncertainty.seed
    if eff_seed is None:
        eff_seed = int(np.random.SeedSequence().entropy % (2**63))
    if int(eff_seed) < 0:
        raise ValueError("seed must be ≥ 0")
    return Scheme(
        **{
            **{f: getattr(parsed, f) for f in parsed.__dataclass_fields__},
            "uncertainty": type(parsed.uncertainty)(
                bootstrap=n_boot,
                seed=int(eff_seed),
                rank_ci=parsed.uncertainty.rank_ci,
                alpha=parsed.uncertainty.alpha,
            ),
        }
    )


def prepare_analysis(
    results: pd.DataFrame | ResultsTable,
    scheme: dict[str, Any] | Scheme,
    *,
    bootstrap: int | None = None,
    seed: int | None = None,
) -> PreparedAnalysis:
    """Validate the inputs and fix the executed scheme of an analysis.

    Parameters are those of :func:`run_analysis`. Pass the same ``bootstrap``
    and ``seed`` to both (without a seed anywhere a fresh one is drawn; read
    it from ``prepared.seed``).

    Raises
    ------
    ResultsError, SchemeError, MissingResultsError (all ValueError)
    """
    parsed = parse_scheme(scheme)
    table = validate_table(results)
    executed = executed_scheme(parsed, bootstrap=bootstrap, seed=seed)
    tasks = tuple(build_tasks(table, executed))
    keys = ("combined",) if executed.combine else tuple(executed.metrics)
    return PreparedAnalysis(scheme=executed, tasks=tasks, keys=keys)


def bootstrap_block_ranks(
    prepared: PreparedAnalysis,
    *,
    key: str,
    task: str,
    blocks: range | None = None,
) -> np.ndarray:
    """Bootstrap rankings of replicate blocks ``blocks`` of one (key, task).

    Parameters
    ----------
    prepared : PreparedAnalysis
        From :func:`prepare_analysis`.
    key : str
        A ranking key of ``prepared.keys``.
    task : str
        A task name of ``prepared.task_names``.
    blocks : range, optional
        Consecutive block numbers within ``range(prepared.n_blocks)`` (step 1);
        all blocks by default. Block ``k`` holds replicates
        ``k * BOOTSTRAP_BLOCK`` up to ``(k + 1) * BOOTSTRAP_BLOCK`` (the last
        block may be shorter).

    Returns
    -------
    ndarray, shape (replicates, algorithms)
        Row ``i`` ranks the algorithms (``prepared.task(task).algorithms``) on
        replicate ``blocks.start * BOOTSTRAP_BLOCK + i``. The result does not
        depend on which other blocks are computed, or where.
    """
    if key not in prepared.keys:
        raise ValueError(f"key {key!r} is not one of {list(prepared.keys)}")
    data = prepared.task(task)
    total = prepared.n_blocks
    chosen = range(total) if blocks is None else blocks
    if chosen.step != 1 or chosen.start < 0 or chosen.stop > total:
        raise ValueError(
            f"blocks must be a range with step 1 within range({total}), not {chosen!r}"
        )
    m = len(data.algorithms)
    if len(chosen) == 0:
        return np.empty((0, m), dtype=np.float64)
    scheme, n_cases = prepared.scheme, len(data.cases)
    try:
        with one_blas_thread():  # see run_analysis
            parts = [
                resampled(
                    lambda c: key_task_ranking(data, scheme, key, c)[0],
                    block_counts(
                        n_cases, prepared.n_boot, seed=prepared.seed, task=task, block=k
                    ),
                )
                for k in chosen
            ]
    except NonFiniteResultError as exc:
        raise exc.named(metric=key, task=task, algorithms=data.algorithms) from None
    finally:
        data.release()  # the sorted pairs: shared by this call's blocks only
    return np.concatenate(parts, axis=0).astype(np.float64, copy=False)
