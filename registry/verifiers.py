"""Further checks of what other apps keep for registrations (e.g. the hashes
of published results), run by ``manage.py verify_registrations`` after the
registrations' own hash chains.

An app declares its check in ``ready()`` by the dotted path of a function, so
that starting Django imports neither the checking module nor what it needs
(the registration module pulls in the PDF exports, reportlab included).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.module_loading import import_string

__all__ = ["Verifier", "add_verifier", "further_verifications"]


@dataclass(frozen=True)
class Verifier:
    """``check``: the dotted path of ``check(registrations)`` (a queryset, None
    = all), which returns how many ``things`` it verified and the problems
    found (``registry.registration.ChainProblem``)."""

    things: str
    check: str


_VERIFIERS: list[Verifier] = []


def add_verifier(verifier: Verifier) -> None:
    if verifier not in _VERIFIERS:
        _VERIFIERS.append(verifier)


def further_verifications(registrations=None) -> list[tuple[str, int, list]]:
    """(things, how many verified, problems) of every declared verifier."""
    return [(v.things, *import_string(v.check)(registrations)) for v in _VERIFIERS]
