"""Worker threads for independent pieces of work: the chunks of pairs of a
large significance map, the planner's blocks.

Threads, not processes: the heavy work is numpy kernels, which release the
GIL, and threads share the task matrices without copying them. Every piece is
computed by the same code whatever thread runs it, and results are collected
in input order, so the output is identical for any number of workers. Pieces
made of many short numpy calls gain nothing: every call hands the GIL to the
other thread and back, which costs more than the call, so an analysis ranks
its tasks one after another (docs/ranking-engine.md, "Speed").

The number of workers is ``RANKING_WORKERS`` from the environment, else
``min(cpu_count, 4)`` (more threads than cores only add switching; beyond four
the pieces of a typical challenge are too few to keep them busy).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["WORKERS_ENV", "default_workers", "one_blas_thread", "parallel_map"]

WORKERS_ENV = "RANKING_WORKERS"
_MAX_DEFAULT = 4

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """``RANKING_WORKERS`` if set (at least 1), else min(cpu_count, 4)."""
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given:
        try:
            return max(1, int(given))
        except ValueError:
            raise ValueError(
                f"{WORKERS_ENV} must be a whole number of worker threads, not {given!r}"
            ) from None
    return max(1, min(os.cpu_count() or 1, _MAX_DEFAULT))


def parallel_map(
    fn: Callable[[T], R], items: Sequence[T], workers: int | None = None
) -> Iterator[R]:
    """Yield ``fn(item)`` for each item in order, computed on up to
    ``workers`` threads (default :func:`default_workers`).

    An exception surfaces where a plain loop would raise it: at the first
    failing item in input order (work not yet started is then cancelled).
    """
    count = default_workers() if workers is None else max(1, int(workers))
    if count == 1 or len(items) <= 1:
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=min(count, len(items)))
    with one_blas_thread():
        try:
            futures = [pool.submit(fn, item) for item in items]
            for future in futures:
                yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


_blas_lock = threading.Lock()
_blas_users = 0
_blas_limits = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread while worker threads run: BLAS's own threads would
    compete with the workers for the same cores (and spin while they wait).

    The limit is process-wide, and parallel maps nest (tasks, then chunks of
    pairs, on other threads): the first to enter sets it, the last to leave
    restores it, whatever the order they leave in.
    """
    global _blas_users, _blas_limits
    with _blas_lock:
        if _blas_users == 0:
            from threadpoolctl import threadpool_limits  # only for parallel work

            _blas_limits = threadpool_limits(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                _blas_limits.restore_original_limits()
                _blas_limits = None
