"""Calls to another server that must not hold a request longer than a bound.

A stopped server refuses the connection at once; a hung one (SIGSTOP, a full
network buffer, a half-open connection) accepts it and never answers, and
neither libpq nor redis-py bounds every step of that. A call started here runs
in a daemon thread that the caller stops waiting for after its bound; the call
itself finishes (or fails) whenever the server answers, and its result is
dropped then.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from django.db import connections

T = TypeVar("T")


class NoAnswerError(TimeoutError):
    """The call did not return within its bound."""


def start_call(function: Callable[[], T], *, name: str) -> Future[T]:
    """``function()`` running in a daemon thread; its future. Database
    connections the call opens are its thread's own, closed when it ends."""
    future: Future[T] = Future()

    def target() -> None:
        try:
            future.set_result(function())
        except BaseException as exc:  # the caller's to see
            future.set_exception(exc)
        finally:
            connections.close_all()

    threading.Thread(target=target, daemon=True, name=f"bounded:{name}").start()
    return future


def result_within(future: Future[T], seconds: float) -> T:
    """The call's result (or its exception); :class:`NoAnswerError` when it has not
    returned within ``seconds``."""
    try:
        return future.result(timeout=max(seconds, 0))
    except TimeoutError:
        if future.done():
            raise  # the call itself raised it
        raise NoAnswerError(f"no answer within {seconds:g} s") from None


def call_within(seconds: float, function: Callable[[], T], *, name: str) -> T:
    """``function()``, given up on after ``seconds`` (see :func:`result_within`)."""
    return result_within(start_call(function, name=name), seconds)
