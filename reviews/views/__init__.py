"""Review pages: chairs, reviewers, organizers. Views parse and render; the
services and selectors of `reviews` do the work and decide who sees what."""

from .chair import (
    assign,
    call_overview,
    calls,
    change_role,
    decide,
    manage,
    unassign,
)
from .conflicts import conflicts
from .landing import landing
from .organizer import resubmit
from .reviewer import decline, my_reviews, review

__all__ = [
    "assign",
    "call_overview",
    "calls",
    "change_role",
    "conflicts",
    "decide",
    "decline",
    "landing",
    "manage",
    "my_reviews",
    "resubmit",
    "review",
    "unassign",
]
