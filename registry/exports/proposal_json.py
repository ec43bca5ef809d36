"""The canonical JSON document of a proposal: export, validation and import.

Document (schema ``challenge-registry/proposal``, version 1)::

    {
      "schema": "challenge-registry/proposal",
      "schema_version": 1,
      "call": "miccai-2027",                 # slug of the call
      "name": "Decathlon",                    # informational, mirrors the name answer
      "status": "accepted",                   # informational, never imported
      "planning": {"duration": "full day"},  # the call's planning answers
      "answers": [                            # challenge level, ordered by number
        {"number": 1, "name": "Challenge name", "value": "Decathlon"},
        {"number": 7, "name": "Ethics approval", "not_applicable": "Public data."}
      ],
      "tasks": [                              # in the proposal's order
        {"name": "Brain", "answers": [...]}   # task level, ordered by number
      ]
    }

An answer's ``name`` is informational (the catalogue's name at export time); the
``number`` identifies the parameter. Import validates the whole document through
the catalogue before writing anything and then writes through
`registry.services`, inside one transaction.

Round trip: export → import → export gives the same document except
``status`` (the import is always a new draft). Nothing of the design content
differs, so `design_content` of both has identical canonical bytes. (``call``
differs only when the import is explicitly directed into another call.)
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from config.json_input import JSONLimitError, loads_bounded
from ranking import scheme_to_dict

from .. import services
from ..canonical import canonical_json_bytes
from ..design import SCHEMA, SCHEMA_VERSION, design_of
from ..models import Call, Challenge
from ..parameters import Parameter, Role, get_parameter
from ..schemes import clean_task_scheme, parse_bounded_scheme

MAX_IMPORT_BYTES = 5 * 1024 * 1024

TOP_KEYS = {
    "schema",
    "schema_version",
    "call",
    "name",
    "status",
    "planning",
    "answers",
    "tasks",
}
INFORMATIONAL_KEYS = frozenset({"status"})
# "plan" (an attached test-set plan) is accepted and not imported: a plan is
# computed by the registry, never taken from a file; the organizer plans again.
TASK_KEYS = {"name", "answers", "scheme", "plan"}
ANSWER_KEYS = {"number", "name", "value", "not_applicable"}
CHALLENGE_NAME_LIMIT = 300  # Challenge.name's column
TASK_NAME_LIMIT = 200


UPLOAD_EXPORT = "Upload the .json file that “Export JSON” saved."


class ImportRefusedError(Exception):
    """The document was refused as a whole; `errors` name every bad field."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        count = len(errors)
        super().__init__(
            f"The file was not imported: {count} problem{'s' if count != 1 else ''}. "
            + errors[0]
        )


# --- export ---------------------------------------------------------------------


def export_challenge(challenge: Challenge) -> dict[str, Any]:
    """The proposal as a plain, JSON-serialisable document: the canonical form of
    `registry.design.Design` (see the module docstring)."""
    return design_of(challenge).to_dict()


def design_content(document: dict[str, Any]) -> dict[str, Any]:
    """The document without its informational fields (what a round trip keeps)."""
    return {k: v for k, v in document.items() if k not in INFORMATIONAL_KEYS}


def export_json_text(challenge: Challenge) -> str:
    """The export as readable JSON (sorted keys, indented) for downloads."""
    text = json.dumps(
        export_challenge(challenge), ensure_ascii=False, sort_keys=True, indent=2
    )
    return text + "\n"


# --- validation -----------------------------------------------------------------


def parse_document(raw: bytes) -> Any:
    """Decode uploaded bytes as UTF-8 JSON; ImportRefusedError says what is wrong."""
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportRefusedError([too_big_message()])
    if not raw.strip():
        raise ImportRefusedError([f"file: is empty. {UPLOAD_EXPORT}"])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportRefusedError(
            [
                "file: is not an exported proposal: it is not plain text (byte"
                f" {exc.start + 1} is not UTF-8; a PDF, Word or spreadsheet file"
                f" looks like this). {UPLOAD_EXPORT}"
            ]
        ) from None
    try:
        return loads_bounded(text, parse_constant=_refuse_constant)
    except JSONLimitError as exc:
        raise ImportRefusedError([f"file: {exc}"]) from None
    except ValueError as exc:
        raise ImportRefusedError(
            [
                "file: is not an exported proposal: it is not valid JSON"
                f" ({exc}). {UPLOAD_EXPORT}"
            ]
        ) from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def too_big_message() -> str:
    return (
        f"file: is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB; an exported "
        "proposal is far smaller — is it the right file?"
    )


def _unknown_keys(where: str, value: dict, allowed: set[str]) -> str | None:
    unknown = set(value) - allowed
    if not unknown:
        return None
    prefix = f"{where}: " if where else ""
    return f"{prefix}unknown keys {sorted(unknown)}; allowed {sorted(allowed)}."


def _parameter_label(parameter: Parameter) -> str:
    return f"parameter {parameter.number} {parameter.name}"


class _Validator:
    """Collects every problem of a document, then either refuses or returns it."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def error(self, message: str) -> None:
        self.errors.append(message)

    def answers(self, value: Any, *, where: str, level: str) -> list[dict[str, Any]]:
        """Cleaned answers: {"number", "value"} or {"number", "not_applicable"}."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.error(f"{where}: expected a list of answers.")
            return []
        cleaned: list[dict[str, Any]] = []
        seen: dict[int, str] = {}
        for i, item in enumerate(value, start=1):
            answer = self.answer(item, where=f"{where}[{i}]", level=level, seen=seen)
            if answer is not None:
                cleaned.append(answer)
        return cleaned

    def answer(
        self, item: Any, *, where: str, level: str, seen: dict[int, str]
    ) -> dict[str, Any] | None:
        if not isinstance(item, dict):
            self.error(f"{where}: expected an object with number and value.")
            return None
        number = item.get("number")
        if isinstance(number, bool) or not isinstance(number, int):
            self.error(f"{where}.number: expected a parameter number (1–53).")
            return None
        try:
            parameter = get_parameter(number)
        except KeyError as exc:
            self.error(f"{where}.number: {exc.args[0]}")
            return None
        label = f"{where} ({_parameter_label(parameter)})"
        unknown = _unknown_keys(label, item, ANSWER_KEYS)
        if unknown:
            self.error(unknown)
            return None
        if parameter.level != level:
            self.error(
                f"{label}: is a {parameter.level}-level parameter and cannot be "
                f"answered at {level} level."
            )
            return None
        if number in seen:
            self.error(f"{label}: is answered twice (also {seen[number]}).")
            return None
        seen[number] = where
        name = item.get("name")
        if name is not None and not isinstance(name, str):
            self.error(f"{label}: name: expected text (it is informational).")
            return None
        has_value, has_na = "value" in item, "not_applicable" in item
        if has_value == has_na:
            self.error(f'{label}: give exactly one of "value" or "not_applicable".')
            return None
        if has_na:
            return self.not_applicable(item["not_applicable"], parameter, label)
        try:
            value = parameter.clean(item["value"])
        except ValidationError as exc:
            for message in exc.messages:
                self.error(f"{label}: {message}")
            return None
        if number == services.NAME_PARAMETER and len(value) > CHALLENGE_NAME_LIMIT:
            self.error(f"{label}: value: at most {CHALLENGE_NAME_LIMIT} characters.")
            return None
        return {"number": number, "value": value}

    def not_applicable(
        self, reason: Any, parameter: Parameter, label: str
    ) -> dict[str, Any] | None:
        if not parameter.not_applicable_allowed:
            self.error(f"{label}: always applies; give a value, not not_applicable.")
            return None
        if not isinstance(reason, str) or not reason.strip():
            self.error(f"{label}: not_applicable: say why it does not apply (text).")
            return None
        return {"number": parameter.number, "not_applicable": reason.strip()[:5000]}

    def tasks(self, value: Any) -> list[dict[str, Any]]:
        if value is None:
            return []
        if not isinstance(value, list):
            self.error("tasks: expected a list of tasks.")
            return []
        cleaned: list[dict[str, Any]] = []
        names: dict[str, str] = {}
        for i, item in enumerate(value, start=1):
            where = f"tasks[{i}]"
            if not isinstance(item, dict):
                self.error(f"{where}: expected an object with name and answers.")
                continue
            unknown = _unknown_keys(where, item, TASK_KEYS)
            if unknown:
                self.error(unknown)
                continue
            name = item.get("name")
            if not isinstance(name, str) or not name.strip():
                self.error(f"{where}.name: give the task a name.")
                name = None
            elif len(name.strip()) > TASK_NAME_LIMIT:
                self.error(f"{where}.name: at most {TASK_NAME_LIMIT} characters.")
                name = None
            else:
                name = name.strip()
                if name in names:
                    self.error(
                        f"{where}.name: {name!r} is already the name of {names[name]}; "
                        "task names must differ."
                    )
                names.setdefault(name, where)
            answers = self.answers(
                item.get("answers"), where=f"{where}.answers", level="task"
            )
            task = {"name": name, "answers": answers}
            if item.get("scheme") is not None:
                task["scheme"] = self.scheme(item["scheme"], where=f"{where}.scheme")
            cleaned.append(task)
        return cleaned

    def scheme(self, value: Any, *, where: str) -> dict[str, Any] | None:
        try:
            return scheme_to_dict(parse_bounded_scheme(value))
        except ValidationError as exc:
            for message in exc.messages:
                self.error(f"{where}.{message.removeprefix('scheme.')}")
            return None

    def planning(self, value: Any) -> dict[str, Any]:
        if value is None:
            return {}
        try:
            return services.clean_planning(value)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                for message in messages:
                    self.error(f"{field}: {message}")
            return {}


def validate_document(data: Any, *, call: Call | None = None) -> dict[str, Any]:
    """A cleaned copy of the document, or ImportRefusedError naming every bad field.

    Returns {"call": Call, "name": str, "planning": dict, "answers": [...],
    "tasks": [{"name", "answers"}]} with every value cleaned by the catalogue.
    """
    if not isinstance(data, dict):
        raise ImportRefusedError(
            [
                "file: expected a JSON object (an exported proposal), "
                f"got {type(data).__name__}."
            ]
        )
    if data.get("schema") != SCHEMA:
        raise ImportRefusedError(
            [
                f"schema: expected {SCHEMA!r}, got {data.get('schema')!r}; "
                "this is not an exported proposal."
            ]
        )
    version = data.get("schema_version")
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise ImportRefusedError(
            [
                f"schema_version: {version!r} is not supported; this registry reads "
                f"version {SCHEMA_VERSION}."
            ]
        )
    try:
        canonical_json_bytes(data)
    except (TypeError, ValueError) as exc:  # lone surrogates, NaN, non-JSON types
        raise ImportRefusedError(
            [f"file: cannot be stored as JSON text: {exc}."]
        ) from None
    check = _Validator()
    unknown = _unknown_keys("", data, TOP_KEYS)
    if unknown:
        check.error(unknown)
    if call is None:
        slug = data.get("call")
        call = Call.objects.filter(slug=slug).first() if isinstance(slug, str) else None
        if call is None:
            check.error(f"call: there is no call {slug!r} in this registry.")
    planning = check.planning(data.get("planning"))
    answers = check.answers(data.get("answers"), where="answers", level="challenge")
    tasks = check.tasks(data.get("tasks"))
    name = next(
        (a["value"] for a in answers if a["number"] == services.NAME_PARAMETER), None
    )
    if name is None:
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            check.error(
                "name: give the challenge a name (answer parameter "
                f"{Role.CHALLENGE_NAME.number} Challenge name)."
            )
        elif len(name.strip()) > CHALLENGE_NAME_LIMIT:
            check.error(f"name: at most {CHALLENGE_NAME_LIMIT} characters.")
    if check.errors:
        raise ImportRefusedError(check.errors)
    return {
        "call": call,
        "name": name.strip(),
        "planning": planning,
        "answers": answers,
        "tasks": tasks,
    }


# --- import ---------------------------------------------------------------------


def _write_answers(challenge: Challenge, task, answers, owner) -> None:
    services.answer_section(
        challenge=challenge,
        task=task,
        actor=owner,
        answers={
            a["number"]: services.AnswerInput(a.get("value"), a.get("not_applicable"))
            for a in answers
        },
    )


@transaction.atomic
def import_challenge(
    data: Any, *, owner, call: Call | None = None, source: str = "JSON file"
) -> Challenge:
    """A NEW draft owned by `owner` from an exported document.

    Everything is validated first (ImportRefusedError lists every problem, nothing is
    written); the writes go through `registry.services` in one transaction.
    `call` overrides the document's call slug; `source` (the file's name)
    is kept as the copy's origin.
    """
    document = validate_document(data, call=call)
    try:
        challenge = services.create_challenge(
            owner=owner, call=document["call"], name=document["name"]
        )
        # Marked, so My proposals tells an imported copy from its original.
        challenge.imported_from = source[:255]
        challenge.save(update_fields=["imported_from"])
        if document["planning"]:
            services.update_challenge(
                challenge=challenge, actor=owner, planning=document["planning"]
            )
        _write_answers(challenge, None, document["answers"], owner)
        for task_data in document["tasks"]:
            task = services.add_task(
                challenge=challenge, name=task_data["name"], actor=owner
            )
            _write_answers(challenge, task, task_data["answers"], owner)
            if task_data.get("scheme") is not None:
                # Stored as exported: the imported scheme prose is kept as is.
                task.scheme = clean_task_scheme(task, task_data["scheme"])
                task.save(update_fields=["scheme"])
    except ValidationError as exc:  # validation above should have caught it
        raise ImportRefusedError(exc.messages) from None
    challenge.refresh_from_db()
    return challenge
