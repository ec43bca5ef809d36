"""The bootstrap of a large analysis in chunks: planning, one chunk's numbers,
and the merge of the stored chunks in block order.

A chunk is a range of the engine's replicate blocks (``BOOTSTRAP_BLOCK``
replicates each) of one scheme group, ranking key and task. A block's draws
depend only on (seed, task, block), so chunks can run anywhere, in any order,
any number of times: the merged output equals a single-process run.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ranking import (
    BOOTSTRAP_BLOCK,
    PreparedAnalysis,
    bootstrap_block_ranks,
    prepare_analysis,
)
from ranking.output import group_tasks_by_scheme

__all__ = [
    "ChunkSpec",
    "blocks_per_chunk",
    "chunk_ranks",
    "group_frame",
    "merged_ranks",
    "plan_chunks",
    "ranks_from_bytes",
    "ranks_to_bytes",
    "scheme_groups",
]


@dataclass(frozen=True)
class ChunkSpec:
    """Replicate blocks [first_block, stop_block) of one (group, key, task)."""

    group: int
    key: str
    task: str
    first_block: int
    stop_block: int


def scheme_groups(schemes: Mapping[str, dict[str, Any]]) -> list[list[str]]:
    """Tasks that share one scheme are ranked together (consensus across them)."""
    return [tasks for tasks, _ in group_tasks_by_scheme(schemes)]


def group_frame(frame: pd.DataFrame, tasks: list[str]) -> pd.DataFrame:
    """The validated rows of ``tasks`` (still marked validated for the engine)."""
    subset = frame[frame["task"].isin(tasks)]
    subset.attrs["validated"] = True
    return subset


def blocks_per_chunk(replicates: int) -> int:
    """Engine blocks per chunk for a wish of ``replicates`` (rounded up, ≥ 1)."""
    return max(1, -(-int(replicates) // BOOTSTRAP_BLOCK))


def _prepared_groups(
    frame: pd.DataFrame, schemes: Mapping[str, dict[str, Any]], *, seed: int
) -> list[PreparedAnalysis]:
    return [
        prepare_analysis(group_frame(frame, tasks), schemes[tasks[0]], seed=seed)
        for tasks in scheme_groups(schemes)
    ]


def plan_chunks(
    frame: pd.DataFrame,
    schemes: Mapping[str, dict[str, Any]],
    *,
    seed: int,
    threshold: int,
    replicates: int,
) -> list[ChunkSpec]:
    """The chunks of an analysis, or [] when its bootstrap work is below
    ``threshold`` (replicates x cases x algorithms over tasks and keys).

    Raises the engine's ValueErrors (bad results or scheme) as they are.
    """
    prepared = _prepared_groups(frame, schemes, seed=seed)
    work = sum(p.bootstrap_work() for p in prepared)
    if work == 0 or work < threshold:
        return []
    step = blocks_per_chunk(replicates)
    return [
        ChunkSpec(index, key, task, start, min(start + step, p.n_blocks))
        for index, p in enumerate(prepared)
        for key in p.keys
        for task in p.task_names
        for start in range(0, p.n_blocks, step)
    ]


_CACHE: dict[tuple, PreparedAnalysis] = {}


def chunk_ranks(
    frame_of,
    schemes: Mapping[str, dict[str, Any]],
    spec: ChunkSpec,
    *,
    seed: int,
    cache_key: tuple,
) -> np.ndarray:
    """Bootstrap rankings of one chunk.

    ``frame_of()`` loads the validated results; the prepared group is kept for
    the next chunk of the same run (one entry per process, keyed by
    ``cache_key``) so a worker parses the results once per run and group.
    """
    key = (*cache_key, spec.group, seed)
    prepared = _CACHE.get(key)
    if prepared is None:
        tasks = scheme_groups(schemes)[spec.group]
        frame = group_frame(frame_of(), tasks)
        prepared = prepare_analysis(frame, schemes[tasks[0]], seed=seed)
        _CACHE.clear()
        _CACHE[key] = prepared
    return bootstrap_block_ranks(
        prepared,
        key=spec.key,
        task=spec.task,
        blocks=range(spec.first_block, spec.stop_block),
    )


def ranks_to_bytes(ranks: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(ranks, dtype=np.float64), allow_pickle=False)
    return buffer.getvalue()


def ranks_from_bytes(data: bytes | memoryview) -> np.ndarray:
    return np.load(io.BytesIO(bytes(data)), allow_pickle=False)


def merged_ranks(
    chunks: list[tuple[ChunkSpec, np.ndarray]],
) -> dict[int, dict[tuple[str, str], np.ndarray]]:
    """Per group, {(key, task): the chunks' rankings concatenated in block order}."""
    parts: dict[int, dict[tuple[str, str], list[tuple[int, np.ndarray]]]] = {}
    for spec, ranks in chunks:
        pair = (spec.key, spec.task)
        parts.setdefault(spec.group, {}).setdefault(pair, []).append(
            (spec.first_block, ranks)
        )
    return {
        group: {
            pair: np.concatenate([r for _, r in sorted(items, key=lambda i: i[0])])
            for pair, items in by_pair.items()
        }
        for group, by_pair in parts.items()
    }
