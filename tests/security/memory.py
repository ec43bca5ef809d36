"""Peak resident memory of one call, measured by the kernel (Linux)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(field: str) -> int:
    for line in STATUS.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise LookupError(field)


def available() -> bool:
    return STATUS.is_file() and CLEAR_REFS.is_file()


def peak_growth_bytes(call: Callable[[], object]) -> tuple[int, object]:
    """How far resident memory rose above its level before `call` (peak - start).

    Writing 5 to clear_refs resets the process's high-water mark (VmHWM), so
    the peak read afterwards belongs to this call alone.
    """
    CLEAR_REFS.write_text("5")
    start = _status_kib("VmRSS")
    result = call()
    return (_status_kib("VmHWM") - start) * 1024, result
