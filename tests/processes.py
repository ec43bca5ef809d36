"""Helpers for the tests that start real processes (Celery workers)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable


def stop_processes(processes: Iterable[subprocess.Popen]) -> None:
    """Ask every process still running to stop, then reap them all: one that has
    not stopped 20 s later is killed."""
    processes = list(processes)
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
