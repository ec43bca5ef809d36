"""The bounds of one call of :func:`~casemodels.fit_case_models` (issue 30).

A model's cost grows with its crossed groupings far faster than with its rows:
one fit with 40 crossed groupings was still at 0 % after 16.5 minutes. Every
evaluation of a model's criterion (the REML criterion, the Laplace deviance or
its gradient: one factorisation each) is one *iteration*; a model may take
``max_iterations`` of them, and the whole call ``max_seconds`` of wall time.
Past either bound the fit stops at the next evaluation (or PIRLS step) and the
caller names the model, its size and what to change.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_MAX_SECONDS",
    "BudgetExceeded",
    "FitBudget",
]

# The reference fits (tests/casemodels/reference) take up to ~8 000 evaluations
# per model (the linear fits' Nelder-Mead polish), the benchmark's 6 x 2 000
# rows a few seconds in all: the defaults leave every sound fit alone.
DEFAULT_MAX_ITERATIONS = 20_000
DEFAULT_MAX_SECONDS = 300.0


class BudgetExceeded(Exception):  # noqa: N818 - a state of the fit, not a bug
    """A model ran past its bound (``kind``: "iterations" or "seconds")."""

    def __init__(self, kind: str, limit: float, iterations: int, elapsed: float):
        super().__init__(kind)
        self.kind, self.limit = kind, limit
        self.iterations, self.elapsed = iterations, elapsed


class FitBudget:
    """Counts a model's iterations and the call's seconds; raises
    :class:`BudgetExceeded` past either bound (None: unbounded).

    ``interrupt`` (optional) is called at every check and may raise to stop the
    fit from outside (a job that lost its run); ``clock`` is injectable for
    tests of the bound itself.
    """

    def __init__(
        self,
        *,
        max_iterations: int | None = DEFAULT_MAX_ITERATIONS,
        max_seconds: float | None = DEFAULT_MAX_SECONDS,
        interrupt: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        for name, value in (
            ("max_iterations", max_iterations),
            ("max_seconds", max_seconds),
        ):
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive (got {value})")
        self.max_iterations, self.max_seconds = max_iterations, max_seconds
        self.interrupt, self.clock = interrupt, clock
        self.started = clock()
        self.iterations = 0

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def new_model(self) -> None:
        """Start counting the iterations of the next model."""
        self.iterations = 0

    def iteration(self) -> None:
        """One evaluation of the model's criterion."""
        self.iterations += 1
        if self.max_iterations is not None and self.iterations > self.max_iterations:
            raise BudgetExceeded(
                "iterations", self.max_iterations, self.max_iterations, self.elapsed
            )
        self.check_time()

    def check_time(self) -> None:
        """Raise past the time bound (called between units of work)."""
        if self.interrupt is not None:
            self.interrupt()
        if self.max_seconds is not None:
            elapsed = self.elapsed
            if elapsed > self.max_seconds:
                raise BudgetExceeded(
                    "seconds", self.max_seconds, self.iterations, elapsed
                )
