"""The one design document of a proposal: a typed `Design` and its one differ.

`design_of(challenge)` reads the live rows once; `Design.to_dict()` is the one
canonical serialized form, used unchanged by review versions
(`reviews.ProposalVersion.snapshot`), exports (`docs/exports.md`), registration
documents (their ``"design"``, hashed), design checks, PDFs and the API.
`Design.from_dict` reads any of them back, and ``from_dict(d).to_dict() == d``
for every well-formed document, so stored (and hashed) versions are never
re-serialized differently. The form::

    {"schema": "challenge-registry/proposal", "schema_version": 1,
     "call": slug, "name": str, "status": str, "planning": {...},
     "answers": [{"number", "name", "value"} | {"number", "name", "not_applicable"}],
     "tasks": [{"name", "answers": [...], "scheme"?: {...}, "plan"?: {...}}]}

A task's ``plan`` is its attached test-set plan (``ranking.planner``), absent
when none is attached, so documents without plans keep their form and hash.

`diff_designs(before, after)` is the one structured differ: answers (word by
word for prose, field by field for structured values), tasks added and removed,
each task's ranking scheme field by field and its test-set plan in plain
words ("n grid 10–200 → 10–500; recommended n 60 → 80"). Revision reviews and amendments
(pages, PDFs and API) all show its `Change`s.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .models import Answer, Challenge
from .parameters import BY_NUMBER, Role, get_parameter
from .test_set_plans import plan_field_changes, plan_text

SCHEMA = "challenge-registry/proposal"
SCHEMA_VERSION = 1
SCHEME_CHANGE = "Ranking scheme"
PLAN_CHANGE = "Test-set plan"


@dataclass(frozen=True)
class DesignAnswer:
    """One answered (or not applicable) parameter; unanswered ones are absent."""

    number: int
    name: str  # the catalogue's name when serialized (informational, hashed)
    value: Any = None
    not_applicable: str = ""

    @property
    def applies(self) -> bool:
        return not self.not_applicable

    def compared(self) -> Any:
        """What the differ compares: the value, or ``{"not_applicable": why}``."""
        return self.value if self.applies else {"not_applicable": self.not_applicable}

    def text(self) -> str:
        """The answer as readers see it."""
        if not self.applies:
            return f"Not applicable: {self.not_applicable}"
        parameter = BY_NUMBER.get(self.number)
        return parameter.to_text(self.value) if parameter else str(self.value)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"number": self.number, "name": self.name}
        if self.applies:
            data["value"] = self.value
        else:
            data["not_applicable"] = self.not_applicable
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DesignAnswer:
        return cls(
            number=data["number"],
            name=data.get("name", ""),
            value=data.get("value"),
            not_applicable=data.get("not_applicable", ""),
        )


def split_compared(compared: Any) -> tuple[Any, str]:
    """``(value, not_applicable)`` of a compared form (see `DesignAnswer.compared`);
    amendments store their changes in that form."""
    if isinstance(compared, dict) and set(compared) == {"not_applicable"}:
        return None, compared["not_applicable"]
    return compared, ""


def _answers_by_number(answers: Iterable[DesignAnswer]) -> dict[int, DesignAnswer]:
    return {a.number: a for a in answers}


def _value_of(answers: Iterable[DesignAnswer], role: Role) -> Any:
    entry = _answers_by_number(answers).get(role.number)
    return entry.value if entry is not None and entry.applies else None


@dataclass(frozen=True)
class TaskDesign:
    name: str
    answers: tuple[DesignAnswer, ...] = ()
    scheme: dict[str, Any] | None = None
    plan: dict[str, Any] | None = None

    def answer(self, number: int) -> DesignAnswer | None:
        return _answers_by_number(self.answers).get(number)

    def value_of(self, role: Role) -> Any:
        """The task's value for the parameter of `role` (None: unanswered or not
        applicable)."""
        return _value_of(self.answers, role)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "answers": [a.to_dict() for a in self.answers],
        }
        if self.scheme is not None:
            data["scheme"] = self.scheme
        if self.plan is not None:
            data["plan"] = self.plan
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskDesign:
        return cls(
            name=data["name"],
            answers=tuple(DesignAnswer.from_dict(a) for a in data.get("answers", [])),
            scheme=data.get("scheme"),
            plan=data.get("plan"),
        )


@dataclass(frozen=True)
class Design:
    call: str
    name: str
    status: str = ""
    planning: dict[str, Any] = field(default_factory=dict)
    answers: tuple[DesignAnswer, ...] = ()
    tasks: tuple[TaskDesign, ...] = ()

    def answer(self, number: int) -> DesignAnswer | None:
        """A challenge-level answer."""
        return _answers_by_number(self.answers).get(number)

    def value_of(self, role: Role) -> Any:
        """The challenge-level value for the parameter of `role` (None:
        unanswered or not applicable)."""
        return _value_of(self.answers, role)

    def task(self, name: str) -> TaskDesign | None:
        return next((t for t in self.tasks if t.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        """The canonical serialized form (see the module docstring)."""
        return {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "call": self.call,
            "name": self.name,
            "status": self.status,
            "planning": dict(self.planning),
            "answers": [a.to_dict() for a in self.answers],
            "tasks": [t.to_dict() for t in self.tasks],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Design:
        """A stored or exported document (already validated or written by us)."""
        return cls(
            call=data.get("call", ""),
            name=data.get("name", ""),
            status=data.get("status", ""),
            planning=dict(data.get("planning") or {}),
            answers=tuple(DesignAnswer.from_dict(a) for a in data.get("answers", [])),
            tasks=tuple(TaskDesign.from_dict(t) for t in data.get("tasks", [])),
        )

    def with_answer(
        self, number: int, compared: Any, *, task: str | None = None
    ) -> Design:
        """A copy with one answer set to `compared` (a value or ``{"not_applicable":
        why}``): an amendment applied in memory."""
        value, reason = split_compared(compared)
        entry = DesignAnswer(number, get_parameter(number).name, value, reason)
        if task is None:
            return replace(self, answers=_set(self.answers, entry))
        return replace(
            self,
            tasks=tuple(
                replace(t, answers=_set(t.answers, entry)) if t.name == task else t
                for t in self.tasks
            ),
        )

    def with_scheme(self, task: str, scheme: dict[str, Any] | None) -> Design:
        return replace(
            self,
            tasks=tuple(
                replace(t, scheme=scheme) if t.name == task else t for t in self.tasks
            ),
        )


def _set(answers: tuple[DesignAnswer, ...], entry: DesignAnswer) -> tuple:
    kept = [a for a in answers if a.number != entry.number]
    return tuple(sorted([*kept, entry], key=lambda a: a.number))


# --- from the live rows ------------------------------------------------------------


def _exportable(answer: Answer) -> bool:
    """Answered or not applicable; an empty stored value is left out (missing)."""
    if answer.not_applicable.strip():
        return True
    return get_parameter(answer.number).is_filled(answer.value)


def _design_answer(answer: Answer) -> DesignAnswer:
    name = get_parameter(answer.number).name
    if answer.not_applicable.strip():
        return DesignAnswer(answer.number, name, not_applicable=answer.not_applicable)
    return DesignAnswer(answer.number, name, answer.value)


def design_of(challenge: Challenge) -> Design:
    """The proposal as it is now (answers by number, tasks in their order)."""
    answers = sorted(
        (a for a in challenge.answers.all() if _exportable(a)),
        key=lambda a: (a.number, a.pk),
    )
    by_task: dict[int | None, list[DesignAnswer]] = {}
    for answer in answers:
        by_task.setdefault(answer.task_id, []).append(_design_answer(answer))
    tasks = sorted(challenge.tasks.all(), key=lambda t: (t.position, t.pk))
    return Design(
        call=challenge.call.slug,
        name=challenge.name,
        status=challenge.status,
        planning=dict(challenge.planning or {}),
        answers=tuple(by_task.get(None, [])),
        tasks=tuple(
            TaskDesign(
                task.name,
                tuple(by_task.get(task.pk, [])),
                task.scheme,
                task.test_set_plan,
            )
            for task in tasks
        ),
    )


# --- the one differ ----------------------------------------------------------------


@dataclass(frozen=True)
class WordChange:
    op: str  # "equal", "insert", "delete"
    text: str


ChangeKind = Literal["answer", "scheme", "plan", "task_added", "task_removed"]


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    scope: str | None  # task name, None for challenge level
    number: int | None  # parameter number, None for a scheme or a whole task
    name: str
    before: Any
    after: Any
    before_text: str = ""
    after_text: str = ""
    words: tuple[WordChange, ...] = ()
    fields: tuple[tuple[str, Any, Any], ...] = ()  # (dotted field, before, after)

    def text_words(self) -> tuple[WordChange, ...]:
        """Word changes between the readable texts (any kind of answer)."""
        return word_diff(self.before_text, self.after_text)

    @property
    def before_words(self) -> list[tuple[str, str]]:
        """Readable text for a "before" column (insertions left out)."""
        return [(w.op, w.text) for w in self.text_words() if w.op != "insert"]

    @property
    def after_words(self) -> list[tuple[str, str]]:
        """Readable text for an "after" column (deletions left out)."""
        return [(w.op, w.text) for w in self.text_words() if w.op != "delete"]

    @property
    def summary(self) -> str:
        """A test-set plan's change in one line of plain words, e.g. "n grid
        10–200 → 10–500; recommended n 60 → 80" (empty for other kinds)."""
        if self.kind != "plan":
            return ""
        if self.before is None:
            return f"attached: {self.after_text}"
        if self.after is None:
            return f"removed (was: {self.before_text})"
        return "; ".join(f"{label} {a} → {b}" for label, a, b in self.fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "task": self.scope,
            "number": self.number,
            "name": self.name,
            "from": self.before,
            "to": self.after,
            "from_text": self.before_text,
            "to_text": self.after_text,
            "words": [{"op": w.op, "text": w.text} for w in self.words],
            "fields": [{"field": f, "from": a, "to": b} for f, a, b in self.fields],
        }


def word_diff(before: str, after: str) -> tuple[WordChange, ...]:
    a, b = before.split(), after.split()
    out: list[WordChange] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(WordChange("equal", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(WordChange("delete", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(WordChange("insert", " ".join(b[j1:j2])))
    return tuple(out)


def field_diff(before: Any, after: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """Dotted paths of every leaf that differs between two JSON values."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after)):
            path = f"{prefix}.{key}" if prefix else str(key)
            out += field_diff(before.get(key), after.get(key), path)
        return out
    return [] if before == after else [(prefix or "(value)", before, after)]


def _answer_change(
    scope: str | None, number: int, a: DesignAnswer | None, b: DesignAnswer | None
) -> Change | None:
    before = a.compared() if a else None
    after = b.compared() if b else None
    if before == after:
        return None
    words: tuple[WordChange, ...] = ()
    fields: tuple[tuple[str, Any, Any], ...] = ()
    if isinstance(before, str) and isinstance(after, str):
        words = word_diff(before, after)
    elif a and b and a.applies and b.applies:
        # Two structured values: the leaves that differ. Anything else (an
        # answer added or removed, marked or unmarked not applicable) reads
        # best as its text before and after.
        fields = tuple(field_diff(before, after))
    parameter = BY_NUMBER.get(number)
    return Change(
        "answer",
        scope,
        number,
        parameter.name if parameter else (a or b).name,
        before,
        after,
        a.text() if a else "",
        b.text() if b else "",
        words,
        fields,
    )


def _answer_changes(scope, before, after) -> list[Change]:
    a, b = _answers_by_number(before), _answers_by_number(after)
    changes = (_answer_change(scope, n, a.get(n), b.get(n)) for n in sorted({*a, *b}))
    return [c for c in changes if c is not None]


def _task_changes(a: TaskDesign, b: TaskDesign) -> list[Change]:
    changes = _answer_changes(a.name, a.answers, b.answers)
    if a.scheme != b.scheme:
        changes.append(
            Change(
                "scheme",
                a.name,
                None,
                SCHEME_CHANGE,
                a.scheme,
                b.scheme,
                # A scheme set or removed lists each of its fields.
                fields=tuple(field_diff(a.scheme or {}, b.scheme or {})),
            )
        )
    if a.plan != b.plan:
        changes.append(_plan_change(a.name, a.plan, b.plan))
    return changes


def _plan_change(scope: str, before: dict | None, after: dict | None) -> Change:
    """A test-set plan attached, removed or changed, in plain words (the plans
    themselves stay in ``before``/``after`` for the API)."""
    return Change(
        "plan",
        scope,
        None,
        PLAN_CHANGE,
        before,
        after,
        plan_text(before),
        plan_text(after),
        fields=plan_field_changes(before, after) if before and after else (),
    )


@dataclass(frozen=True)
class DesignDiff:
    changes: tuple[Change, ...]

    @property
    def added_tasks(self) -> list[str]:
        return [c.scope for c in self.changes if c.kind == "task_added"]

    @property
    def removed_tasks(self) -> list[str]:
        return [c.scope for c in self.changes if c.kind == "task_removed"]

    @property
    def changed(self) -> list[Change]:
        """Answers, schemes and plans (tasks added or removed left out)."""
        return [c for c in self.changes if c.kind in ("answer", "scheme", "plan")]

    def __iter__(self):
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __bool__(self) -> bool:
        return bool(self.changes)


def diff_designs(before: Design, after: Design) -> DesignDiff:
    """Every change from `before` to `after`, challenge level first, then the
    tasks (matched by name) in order, each added or removed task as one change."""
    changes = _answer_changes(None, before.answers, after.answers)
    tasks_a = {t.name: t for t in before.tasks}
    tasks_b = {t.name: t for t in after.tasks}
    for name in [*tasks_a, *(t for t in tasks_b if t not in tasks_a)]:
        a, b = tasks_a.get(name), tasks_b.get(name)
        if a is not None and b is not None:
            changes += _task_changes(a, b)
            continue
        kind: ChangeKind = "task_added" if a is None else "task_removed"
        changes.append(
            Change(
                kind, name, None, kind.replace("_", " "), a is not None, b is not None
            )
        )
    return DesignDiff(tuple(changes))
