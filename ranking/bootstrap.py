"""Bootstrap and leave-one-case-out stability, Kendall's τ-b and other
ranking comparisons (seed 000, "Comparison of rankings", "Bootstrap
approach", Figs. 5-6; seed 004 §4.3, bootstrap and leave-one-out).

Resamples are represented by a (samples x cases) matrix of case counts; a
case drawn twice counts twice. Draws come only from
``np.random.default_rng(seed)`` and are the same for every algorithm.

An analysis's replicates are *chunk-addressable*: replicate block ``k`` (the
replicates ``k * BOOTSTRAP_BLOCK`` up to ``(k + 1) * BOOTSTRAP_BLOCK``) of a
task draws from its own generator :func:`block_rng` (seed, task, k), so any
subset of blocks can be computed anywhere, in any order, and the blocks
concatenated in order are the replicates of a single-process run.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator

import numpy as np

from .results import BootstrapResult, RankingComparison

__all__ = [
    "BOOTSTRAP_BLOCK",
    "block_counts",
    "block_rng",
    "bootstrap_counts",
    "bootstrap_indices",
    "case_counts",
    "compare_rankings",
    "kendall_tau_b",
    "leave_one_out_counts",
    "n_blocks",
    "spearman_distance",
    "spearman_footrule",
    "summarise_resamples",
    "winner_again",
]

_CHUNK_ELEMENTS = 2_000_000
_DISTINCT_FROM = 64  # rankings from which repeated ones are computed once
BOOTSTRAP_BLOCK = 100  # replicates per independently seeded block
_BLOCK_STREAM = 0x424C4B31  # "BLK1": keeps block streams apart from other seeds


def chunk_size(n_cases: int) -> int:
    """Samples per chunk so that a chunk of counts stays small."""
    return max(1, _CHUNK_ELEMENTS // max(1, n_cases))


def bootstrap_indices(
    n_cases: int, n_samples: int, *, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Yield chunks of bootstrap draws, shape (chunk, n_cases): case indices.

    Each sample draws ``n_cases`` cases with replacement (seed 000, "Bootstrap
    approach"); the chunking depends only on ``n_cases``, so a given seed
    always yields the same samples.
    """
    step = chunk_size(n_cases)
    for start in range(0, n_samples, step):
        size = min(step, n_samples - start)
        yield rng.integers(0, n_cases, size=(size, n_cases))


def case_counts(idx: np.ndarray, n_cases: int) -> np.ndarray:
    """Counts (samples x n_cases) of case indices drawn (samples x draws)."""
    size = idx.shape[0]
    offsets = (np.arange(size) * n_cases)[:, None]
    flat = np.bincount((idx + offsets).ravel(), minlength=size * n_cases)
    return flat.reshape(size, n_cases).astype(np.int64)


def bootstrap_counts(
    n_cases: int, n_samples: int, *, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Yield chunks of bootstrap case counts, shape (chunk, n_cases).

    Row b counts how often each case was drawn in sample b (the draws of
    :func:`bootstrap_indices`); a case drawn twice counts twice.
    """
    for idx in bootstrap_indices(n_cases, n_samples, rng=rng):
        yield case_counts(idx, n_cases)


def block_rng(seed: int, task: str, block: int) -> np.random.Generator:
    """The generator of replicate block ``block`` of task ``task``.

    Depends only on (seed, task name, block number): not on the other tasks,
    the number of blocks or where the block is computed.
    """
    if block < 0:
        raise ValueError("block must be ≥ 0")
    crc = zlib.crc32(task.encode("utf-8"))
    return np.random.default_rng([seed, crc, _BLOCK_STREAM, block])


def block_counts(
    n_cases: int, n_samples: int, *, seed: int, task: str, block: int
) -> Iterator[np.ndarray]:
    """Yield the case counts of replicate block ``block`` of ``n_samples``.

    The block holds replicates ``[block * BOOTSTRAP_BLOCK, min(n_samples,
    (block + 1) * BOOTSTRAP_BLOCK))``, drawn from :func:`block_rng`; it is
    yielded in pieces that depend only on ``n_cases`` (memory stays bounded).
    """
    start = block * BOOTSTRAP_BLOCK
    size = min(BOOTSTRAP_BLOCK, n_samples - start)
    if size <= 0:
        raise ValueError(f"block {block} is beyond {n_samples} samples")
    rng = block_rng(seed, task, block)
    for idx in bootstrap_indices(n_cases, size, rng=rng):
        yield case_counts(idx, n_cases)


def n_blocks(n_samples: int) -> int:
    """Number of replicate blocks of ``n_samples`` replicates."""
    return -(-n_samples // BOOTSTRAP_BLOCK)


def leave_one_out_counts(n_cases: int) -> Iterator[np.ndarray]:
    """Yield chunks of leave-one-case-out counts (row i omits case i)."""
    step = chunk_size(n_cases)
    for start in range(0, n_cases, step):
        stop = min(n_cases, start + step)
        counts = np.ones((stop - start, n_cases), dtype=np.int64)
        counts[np.arange(stop - start), np.arange(start, stop)] = 0
        yield counts


def resampled(
    rank_fn: Callable[[np.ndarray], np.ndarray], chunks: Iterator[np.ndarray]
) -> np.ndarray:
    """Apply ``rank_fn(counts) -> (chunk, m)`` to every chunk and stack."""
    parts = [rank_fn(c) for c in chunks]
    return np.concatenate(parts, axis=0)


def kendall_tau_b(reference: np.ndarray, rankings: np.ndarray) -> np.ndarray:
    """Kendall's τ-b between a reference ranking and one or many rankings.

    Parameters
    ----------
    reference : ndarray, shape (m,)
    rankings : ndarray, shape (m,) or (B, m)

    Returns
    -------
    float or ndarray, shape (B,)
        τ-b = (C - D) / sqrt((P - T_x)(P - T_y)), as ``scipy.stats.kendalltau``;
        NaN when either ranking is constant.
    """
    ref = np.asarray(reference, dtype=np.float64)
    r = np.asarray(rankings, dtype=np.float64)
    single = r.ndim == 1
    r2 = r[None, :] if single else r
    if r2.shape[0] > _DISTINCT_FROM:
        # Resamples often repeat a ranking (leave-one-case-out: nearly all
        # do): each distinct ranking once, by its bytes, so the same bits.
        rows = np.ascontiguousarray(r2)
        keys = rows.view(np.dtype((np.void, rows.itemsize * rows.shape[1])))
        _, first, inverse = np.unique(
            keys.ravel(), return_index=True, return_inverse=True
        )
        return _kendall_rows(ref, rows[first])[inverse.ravel()]
    out = _kendall_rows(ref, r2)
    return float(out[0]) if single else out


def _kendall_rows(ref: np.ndarray, r2: np.ndarray) -> np.ndarray:
    """:func:`kendall_tau_b` of each row of ``r2``, shape (B,)."""
    m = ref.shape[0]
    ii, jj = np.triu_indices(m, k=1)
    s0 = np.sign(ref[ii] - ref[jj]).astype(np.int8)
    n0 = float(np.count_nonzero(s0))
    out = np.full(r2.shape[0], np.nan)
    step = max(1, _CHUNK_ELEMENTS // max(1, ii.size))
    for start in range(0, r2.shape[0], step):
        block = r2[start : start + step]
        sb = np.sign(block[:, ii] - block[:, jj]).astype(np.int8)
        num = (sb.astype(np.int64) * s0).sum(axis=1)
        nb = np.count_nonzero(sb, axis=1).astype(np.float64)
        den = np.sqrt(n0 * nb)
        res = np.full(block.shape[0], np.nan)
        np.divide(num, den, out=res, where=den > 0)
        out[start : start + step] = res
    return out


def spearman_footrule(a: np.ndarray, b: np.ndarray) -> float:
    """Σ |a_i - b_i| (0 for identical rankings; seed 000)."""
    return float(np.abs(np.asarray(a, float) - np.asarray(b, float)).sum())


def spearman_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Σ (a_i - b_i)² (seed 000, Spearman's distance)."""
    return float(((np.asarray(a, float) - np.asarray(b, float)) ** 2).sum())


def compare_rankings(a: np.ndarray, b: np.ndarray) -> RankingComparison:
    """Kendall's τ-b, Spearman's footrule and Spearman's distance of two rankings."""
    return RankingComparison(
        kendall_tau=float(kendall_tau_b(a, b)),
        spearman_footrule=spearman_footrule(a, b),
        spearman_distance=spearman_distance(a, b),
    )


def winner_again(full: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Per resample: is an algorithm ranked first on ``full`` ranked first
    again (a shared first place counts)? Shape (B,) of bool."""
    full = np.asarray(full, dtype=np.float64)
    ranks = np.asarray(ranks, dtype=np.float64)
    winners = full == full.min()
    best = ranks.min(axis=1, keepdims=True) if ranks.size else ranks
    return (ranks[:, winners] == best).any(axis=1)


def summarise_resamples(full: np.ndarray, ranks: np.ndarray) -> BootstrapResult:
    """Median and 2.5/97.5 percentiles of each algorithm's resampled ranks,
    τ-b of every resample to the full ranking and the winner's stability.

    ``winner_stability`` is the share of resamples in which an algorithm
    ranked first on the full data is ranked first again (contract §2).
    """
    full = np.asarray(full, dtype=np.float64)
    ranks = np.asarray(ranks, dtype=np.float64)
    again = winner_again(full, ranks)
    return BootstrapResult(
        ranks=ranks,
        kendall_tau=kendall_tau_b(full, ranks),
        winner_stability=float(again.mean()) if ranks.shape[0] else float("nan"),
        median=np.median(ranks, axis=0),
        lower=np.percentile(ranks, 2.5, axis=0),
        upper=np.percentile(ranks, 97.5, axis=0),
    )
