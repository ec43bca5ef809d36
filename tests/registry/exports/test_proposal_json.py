import copy

import pytest

from registry import services
from registry.canonical import canonical_json_bytes
from registry.enums import ChallengeStatus
from registry.exports import (
    SCHEMA,
    ImportRefusedError,
    design_content,
    export_challenge,
    import_challenge,
    parse_document,
)
from registry.models import Answer, Challenge, StatusChange, Task
from registry.parameters import PARAMETERS, get_parameter
from tests.factories import CallFactory, UserFactory

pytestmark = pytest.mark.django_db


def row_counts():
    return (
        Challenge.objects.count(),
        Task.objects.count(),
        Answer.objects.count(),
        StatusChange.objects.count(),
    )


def answer_position(document_answers, number):
    """1-based position of parameter `number` in an exported answer list."""
    return [a["number"] for a in document_answers].index(number) + 1


def test_export_challenge_has_schema_header_and_ordered_answers(proposal, organizer):
    services.answer_parameter(
        challenge=proposal, number=7, not_applicable="Public data.", actor=organizer
    )
    services.add_task(challenge=proposal, name="Abdomen", actor=organizer)

    document = export_challenge(proposal)

    assert document["schema"] == SCHEMA
    assert document["schema_version"] == 1
    assert document["call"] == "miccai-2027"
    assert document["name"] == "Decathlon"
    assert document["status"] == "draft"
    challenge_level = [p.number for p in PARAMETERS if p.level == "challenge"]
    assert [a["number"] for a in document["answers"]] == challenge_level
    assert document["answers"][0] == {
        "number": 1,
        "name": "Challenge name",
        "value": "Decathlon",
    }
    assert document["answers"][6] == {
        "number": 7,
        "name": "Ethics approval",
        "not_applicable": "Public data.",
    }
    assert [t["name"] for t in document["tasks"]] == ["Brain", "Abdomen"]
    assert [a["number"] for a in document["tasks"][0]["answers"]] == list(range(16, 54))
    assert document["tasks"][1]["answers"] == []


def test_import_round_trip_reproduces_identical_design_bytes(proposal, organizer):
    services.update_challenge(
        challenge=proposal,
        actor=organizer,
        planning={"duration": "full day", "expected_participants": 12},
    )
    services.answer_parameter(
        challenge=proposal,
        number=7,
        not_applicable="Public data ≥ 2020 – Größe <b>&",
        actor=organizer,
    )
    abdomen = services.add_task(challenge=proposal, name="Abdomen", actor=organizer)
    services.answer_parameter(
        challenge=proposal, task=abdomen, number=38, value={"count": 0}, actor=organizer
    )
    proposal.call.completeness_threshold = 50  # the Abdomen task is mostly empty
    proposal.call.save()
    services.submit_challenge(challenge=proposal, actor=organizer)
    first = export_challenge(proposal)
    assert first["status"] == "submitted"
    other = UserFactory(username="importer")

    imported = import_challenge(copy.deepcopy(first), owner=other)
    second = export_challenge(imported)

    assert imported.pk != proposal.pk
    assert imported.owner == other
    assert imported.status == ChallengeStatus.DRAFT
    assert canonical_json_bytes(design_content(second)) == canonical_json_bytes(
        design_content(first)
    )
    changed = {key for key in first if first[key] != second[key]}
    assert changed == {"status"}
    assert second["status"] == "draft"


def test_export_leaves_out_empty_stored_values(proposal):
    Answer.objects.filter(challenge=proposal, task=None, number=5).update(value="")

    document = export_challenge(proposal)

    assert 5 not in [a["number"] for a in document["answers"]]
    assert 2 in [a["number"] for a in document["answers"]]


def test_import_refuses_bad_count_naming_the_field_and_creates_nothing(
    proposal, organizer
):
    document = export_challenge(proposal)
    task_answers = document["tasks"][0]["answers"]
    position = answer_position(task_answers, 38)
    task_answers[position - 1]["value"] = {"count": -1, "details": ""}
    before = row_counts()

    with pytest.raises(ImportRefusedError) as refused:
        import_challenge(document, owner=organizer)

    assert refused.value.errors == [
        f"tasks[1].answers[{position}] (parameter 38 Number of test cases): "
        "count: expected a whole number ≥ 0."
    ]
    assert row_counts() == before


def test_import_lists_every_problem_of_the_document(proposal, organizer):
    document = export_challenge(proposal)
    document["answers"][1]["value"] = "not a url"
    document["tasks"].append({"name": "Brain", "answers": []})
    before = row_counts()

    with pytest.raises(ImportRefusedError) as refused:
        import_challenge(document, owner=organizer)

    assert refused.value.errors == [
        "answers[2] (parameter 2 Challenge website): value: 'not a url' is not an "
        "http(s) URL.",
        "tasks[2].name: 'Brain' is already the name of tasks[1]; task names must "
        "differ.",
    ]
    assert row_counts() == before


def minimal(**changes):
    document = {
        "schema": SCHEMA,
        "schema_version": 1,
        "call": "miccai-2027",
        "name": "Mini",
        "answers": [{"number": 1, "value": "Mini"}],
        "tasks": [{"name": "T1", "answers": [{"number": 38, "value": {"count": 3}}]}],
    }
    document.update(changes)
    return document


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schema": "other/thing"}, "schema: expected 'challenge-registry/proposal'"),
        ({"schema_version": 2}, "schema_version: 2 is not supported"),
        ({"schema_version": True}, "schema_version: True is not supported"),
        ({"colour": "red"}, "unknown keys ['colour']"),
        ({"call": "nope"}, "call: there is no call 'nope' in this registry."),
        (
            {"answers": [{"number": 38, "value": {"count": 3}}]},
            "answers[1] (parameter 38 Number of test cases): is a task-level "
            "parameter and cannot be answered at challenge level.",
        ),
        (
            {"answers": [{"number": 99, "value": "x"}]},
            "answers[1].number: No parameter 99; parameters are numbered 1–53.",
        ),
        (
            {"answers": [{"number": "1", "value": "x"}]},
            "answers[1].number: expected a parameter number (1–53).",
        ),
        (
            {
                "answers": [
                    {"number": 2, "value": "https://a.org"},
                    {"number": 2, "value": "https://b.org"},
                ]
            },
            "answers[2] (parameter 2 Challenge website): is answered twice "
            "(also answers[1]).",
        ),
        (
            {"answers": [{"number": 1, "value": "X", "not_applicable": "why"}]},
            'answers[1] (parameter 1 Challenge name): give exactly one of "value" '
            'or "not_applicable".',
        ),
        (
            {"answers": [{"number": 4, "not_applicable": "Does not apply."}]},
            "answers[1] (parameter 4 Life cycle type): always applies; give a value",
        ),
        (
            {"answers": [{"number": 7, "not_applicable": "  "}]},
            "answers[1] (parameter 7 Ethics approval): not_applicable: say why",
        ),
        (
            {"answers": [{"number": 1, "value": "x", "comment": "hi"}]},
            "answers[1] (parameter 1 Challenge name): unknown keys ['comment']",
        ),
        (
            {"tasks": [{"name": "A"}, {"name": " A "}]},
            "tasks[2].name: 'A' is already the name of tasks[1]",
        ),
        ({"tasks": [{"name": ""}]}, "tasks[1].name: give the task a name."),
        ({"tasks": [{"name": "A", "x": 1}]}, "tasks[1]: unknown keys ['x']"),
        ({"tasks": {"name": "A"}}, "tasks: expected a list of tasks."),
        (
            {"planning": {"duration": "a week"}},
            "planning.duration: Expected one of ['half day', 'full day'].",
        ),
        ({"planning": {"budget": 3}}, "planning: Unknown questions ['budget']."),
        (
            {"answers": [], "name": ""},
            "name: give the challenge a name (answer parameter 1 Challenge name).",
        ),
        (
            {"answers": [{"number": 1, "value": "x" * 301}]},
            "answers[1] (parameter 1 Challenge name): value: at most 300 characters.",
        ),
        ({"name": "\ud800", "answers": []}, "file: cannot be stored as JSON text"),
    ],
)
def test_import_refuses_bad_document_naming_the_field(
    organizer, call, changes, message
):
    before = row_counts()

    with pytest.raises(ImportRefusedError) as refused:
        import_challenge(minimal(**changes), owner=organizer)

    assert any(e.startswith(message) for e in refused.value.errors), (
        refused.value.errors
    )
    assert row_counts() == before


def test_import_refuses_a_list_instead_of_a_document(organizer, call):
    with pytest.raises(ImportRefusedError, match="expected a JSON object"):
        import_challenge([minimal()], owner=organizer)


def test_import_minimal_document_creates_a_draft_of_the_owner(organizer, call):
    challenge = import_challenge(minimal(), owner=organizer)

    assert challenge.name == "Mini"
    assert challenge.owner == organizer
    assert challenge.call == call
    assert challenge.status == ChallengeStatus.DRAFT
    task = challenge.tasks.get()
    assert task.name == "T1"
    assert task.answers.get(number=38).value == {"count": 3, "details": ""}


def test_import_takes_the_name_field_when_parameter_1_is_absent(organizer, call):
    challenge = import_challenge(
        minimal(answers=[], name="  From the header "), owner=organizer
    )

    assert challenge.name == "From the header"
    assert challenge.answers.get(task=None, number=1).value == "From the header"


def test_import_into_a_given_call_overrides_the_document(organizer, call):
    other_call = CallFactory(slug="isbi-2028")

    challenge = import_challenge(minimal(call="nope"), owner=organizer, call=other_call)

    assert challenge.call == other_call


def test_import_normalises_values_through_the_catalogue(organizer, call):
    parameter = get_parameter(14)
    document = minimal(
        answers=[
            {"number": 1, "value": "  Mini  "},
            {"number": 14, "value": {"choices": list(reversed(parameter.choices))}},
        ]
    )

    challenge = import_challenge(document, owner=organizer)

    assert challenge.name == "Mini"
    stored = challenge.answers.get(number=14).value
    assert stored == {"choices": list(parameter.choices), "details": ""}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "file: is empty"),
        (b"{not json", "file: is not an exported proposal: it is not valid JSON"),
        (b"\xff\xfe{}", "file: is not an exported proposal: it is not plain text"),
        (b'{"x": NaN}', "file: is not an exported proposal: it is not valid JSON"),
    ],
)
def test_parse_document_names_the_problem(raw, message):
    with pytest.raises(ImportRefusedError) as refused:
        parse_document(raw)

    assert refused.value.errors[0].startswith(message)
    assert refused.value.errors[0].endswith(
        "Upload the .json file that “Export JSON” saved."
    )


def test_parse_document_says_where_a_file_stops_being_text():
    with pytest.raises(ImportRefusedError) as refused:
        parse_document(b'{"name": "\xff"}')
    assert "(byte 11 is not UTF-8;" in refused.value.errors[0]


def test_parse_document_accepts_a_utf8_bom():
    assert parse_document('\ufeff{"a": "ü"}'.encode()) == {"a": "ü"}
