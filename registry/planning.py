"""Conference-planning questions asked besides the 53 parameters (`004` §5.1).

Chairs see the answers and which are unanswered; they do not count towards the
completeness threshold, as in the original submission system.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class PlanningQuestion:
    key: str
    label: str
    kind: str  # "choice", "integer" or "text"
    help: str
    choices: tuple[str, ...] = ()


PLANNING_QUESTIONS: tuple[PlanningQuestion, ...] = (
    PlanningQuestion(
        "duration",
        "Challenge duration",
        "choice",
        "How long the challenge event at the conference takes.",
        ("half day", "full day"),
    ),
    PlanningQuestion(
        "workshop",
        "Associated workshop",
        "text",
        "Whether the challenge is part of a conference workshop, and which.",
    ),
    PlanningQuestion(
        "expected_participants",
        "Expected number of participants",
        "integer",
        "Teams you expect to submit results.",
    ),
    PlanningQuestion(
        "publication",
        "Publication and future plans",
        "text",
        "Joint publication of the results, follow-up editions, data release.",
    ),
    PlanningQuestion(
        "space_hardware",
        "Space and hardware requirements",
        "text",
        "Room size, posters, screens, computing resources needed on site.",
    ),
)

PLANNING_KEYS = frozenset(q.key for q in PLANNING_QUESTIONS)


def unanswered_planning(planning: dict) -> list[PlanningQuestion]:
    return [q for q in PLANNING_QUESTIONS if planning.get(q.key) in (None, "")]
