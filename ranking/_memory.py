"""Handing freed memory back to the system between the phases of a large run.

glibc keeps the memory a process frees for reuse by the same arena; the
worker threads allocate from arenas of their own, so after reading a large
table (hundreds of MB of parser buffers, freed) the analysis's threads would
add their working memory on top of it. ``malloc_trim(0)`` returns the free
pages; where there is no glibc it is simply not done. No number of the output
depends on it.
"""

from __future__ import annotations

__all__ = ["LARGE_ROWS", "release_free_memory"]

LARGE_ROWS = 100_000  # rows of a results table from which it is worth doing


def release_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc's ``malloc_trim``)."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc
        return
    trim.argtypes = [ctypes.c_size_t]
    trim(0)
