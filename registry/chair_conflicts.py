"""Who may act for the call on a registered design: decide its amendments and
register it (issue 30).

A chair of the call, or staff, may, unless in conflict of interest with the
proposal; another chair (or staff) then does. The registry knows who organizes
a proposal; the wider rules (a shared institution or mail domain, a declared
conflict) are the reviewers' rules, which `reviews` declares here when it is
ready (`reviews.apps`), as it declares its reader rule in `permissions`.
"""

from __future__ import annotations

from collections.abc import Callable

from .models import Challenge
from .permissions import is_chair, is_organizer

# (user, challenge) -> why they are in conflict with it, or None
ConflictRule = Callable[[object, Challenge], str | None]

_CONFLICT_RULES: list[ConflictRule] = []


def add_conflict_rule(rule: ConflictRule) -> None:
    if rule not in _CONFLICT_RULES:
        _CONFLICT_RULES.append(rule)


def conflict_of(user, challenge: Challenge) -> str | None:
    """Why `user` is in conflict of interest with `challenge`, or None."""
    if is_organizer(user, challenge):
        return f"{user.get_username()} is an organizer of this proposal."
    for rule in _CONFLICT_RULES:
        if reason := rule(user, challenge):
            return reason
    return None


def may_act_for_call(user, challenge: Challenge) -> bool:
    """A chair of the call or staff (before any conflict is asked)."""
    return user.is_authenticated and (user.is_staff or is_chair(user, challenge))


def call_action_refusal(user, challenge: Challenge, *, action: str) -> str | None:
    """Why `user` may not `action` (e.g. "decide on amendments") for the call on
    `challenge`, or None when they may."""
    if not may_act_for_call(user, challenge):
        return f"Only the call's chairs (or staff) {action}."
    reason = conflict_of(user, challenge)
    if reason is not None:
        return (
            f"You have a conflict of interest with this proposal ({reason}); "
            f"another chair of the call (or staff) must {action}."
        )
    return None
