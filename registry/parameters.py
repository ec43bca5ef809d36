"""The catalogue of the 53 challenge parameters — the ONE list in the code base.

Order, groups and names follow Table 4.5 of seed `004` (Table 1 of seed `002`);
`required_for_submission` marks the 40 parameters the structured submission
system asked for (`004` §5.1). Definitions follow the wording of the BIAS
reporting guideline (`004` Appendix A.8); examples are taken mostly from the MSD
and RobustMIS designs (`004` A.6/A.7); `bias_items` name the checklist items of
`registry.bias_checklist` that a parameter feeds. Forms, API, completeness,
exports and PDFs iterate over `PARAMETERS`; adding or changing a parameter is one
entry in `parameters.toml` (the 53 entries are data: one `[[parameter]]` table
each, with the fields of `Parameter`), read here once at import.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, get_args

from .answer_kinds import KINDS

Level = Literal["challenge", "task"]


class Role(StrEnum):
    """What code reads a parameter for. Logic names a parameter by its role, never
    by its Table 4.5 number: the catalogue entry below says which one it is."""

    CHALLENGE_NAME = "challenge_name"
    ORGANIZING_INSTITUTIONS = "organizing_institutions"
    SCHEDULE = "schedule"  # data release dates (public record's quality profile)
    ORGANIZER_PARTICIPATION = "organizer_participation"
    TRAINING_POLICY = "training_policy"
    PRE_EVALUATION = "pre_evaluation"
    SUBMISSION_INSTRUCTIONS = "submission_instructions"
    FIELD_OF_APPLICATION = "field_of_application"
    TASK_CATEGORY = "task_category"
    IMAGING_MODALITY = "imaging_modality"
    ALGORITHM_TARGETS = "algorithm_targets"  # the structures (registry search)
    TEST_CASES = "test_cases"
    CONTEXT_INFORMATION = "context_information"  # names case characteristics
    TEST_CASE_CHARACTERISTICS = "test_case_characteristics"  # likewise
    METRICS = "metrics"
    RANKING_METHOD = "ranking_method"  # prose derived from the scheme
    MISSING_DATA = "missing_data"  # prose derived from the scheme
    UNCERTAINTY = "uncertainty"  # prose derived from the scheme
    STATISTICAL_TESTS = "statistical_tests"  # prose derived from the scheme

    @property
    def parameter(self) -> Parameter:
        return BY_ROLE[self]

    @property
    def number(self) -> int:
        return BY_ROLE[self].number


# The prose a task's ranking scheme writes (keys of `ranking.describe_scheme`): while
# the task has a scheme these answers are the scheme's, read-only in every interface.
SCHEME_PROSE: dict[Role, str] = {
    Role.RANKING_METHOD: "ranking",
    Role.MISSING_DATA: "missing",
    Role.UNCERTAINTY: "uncertainty",
    Role.STATISTICAL_TESTS: "tests",
}


@dataclass(frozen=True)
class Parameter:
    number: int
    group: str
    name: str
    level: Level
    kind: str
    required_for_submission: bool
    reported_2004_2016_pct: int
    definition: str
    examples: tuple[str, ...]
    bias_items: tuple[str, ...]
    choices: tuple[str, ...] = ()
    not_applicable_allowed: bool = True
    role: Role | None = None

    @property
    def key(self) -> str:
        """Stable identifier for form fields and HTML anchors (`p07`)."""
        return f"p{self.number:02d}"

    @property
    def example_value(self) -> Any:
        return KINDS[self.kind].example(choices=self.choices)

    def clean(self, value: Any) -> Any:
        """Validate and normalise a submitted value (raises ValidationError)."""
        return KINDS[self.kind].clean(value, choices=self.choices)

    def is_filled(self, value: Any) -> bool:
        return KINDS[self.kind].is_filled(value)

    def to_text(self, value: Any) -> str:
        return KINDS[self.kind].to_text(value)

    @property
    def derived_from_scheme(self) -> bool:
        """Written from the task's ranking scheme when the task has one."""
        return self.role in SCHEME_PROSE


def _parameter(entry: dict[str, Any]) -> Parameter:
    """One `[[parameter]]` table of the data file, checked against the kinds."""
    fields = dict(entry)
    for key in ("choices", "examples", "bias_items"):
        fields[key] = tuple(fields.get(key, ()))
    if "role" in fields:
        fields["role"] = Role(fields["role"])
    if fields["level"] not in get_args(Level) or fields["kind"] not in KINDS:
        raise ValueError(f"Parameter {fields['number']}: unknown level or kind.")
    return Parameter(**fields)


def _load(path: Path) -> tuple[Parameter, ...]:
    with path.open("rb") as data:
        return tuple(_parameter(entry) for entry in tomllib.load(data)["parameter"])


PARAMETERS: tuple[Parameter, ...] = _load(Path(__file__).with_name("parameters.toml"))

BY_NUMBER: dict[int, Parameter] = {p.number: p for p in PARAMETERS}
BY_ROLE: dict[Role, Parameter] = {p.role: p for p in PARAMETERS if p.role}
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(p.group for p in PARAMETERS))
# Parameters reported after the challenge has run (participants, results,
# report): unanswered at registration by nature, never "missing" in public.
OUTCOME_GROUP = "Challenge outcome"
OUTCOME_PARAMETERS: tuple[Parameter, ...] = tuple(
    p for p in PARAMETERS if p.group == OUTCOME_GROUP
)


def get_parameter(number: int) -> Parameter:
    """The parameter with this Table 4.5 number; KeyError names the valid range."""
    try:
        return BY_NUMBER[number]
    except KeyError:
        raise KeyError(
            f"No parameter {number}; parameters are numbered 1–53."
        ) from None


def parameters_at(level: Level) -> tuple[Parameter, ...]:
    return tuple(p for p in PARAMETERS if p.level == level)


def parameters_in(group: str) -> tuple[Parameter, ...]:
    return tuple(p for p in PARAMETERS if p.group == group)
