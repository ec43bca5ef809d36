import csv
import io
from collections import Counter

import lxml.html
import pytest

from demo.story import MSD_SCHEME
from publicrecord.figures import Bar, bar_chart
from registry.amendments import approve_amendment, propose_amendment
from registry.models import Answer, Challenge, Registration
from registry.parameters import PARAMETERS, Role
from tests.factories import CallFactory
from tests.stacked_tables import assert_cells_labelled_by_headers

from .conftest import AGGREGATE_SCHEME, propose_more_cases, registered

pytestmark = pytest.mark.django_db

STATS = "/api/v1/statistics/"


def _filled(parameter, answer) -> bool:
    return (
        answer is not None
        and not answer.not_applicable.strip()
        and parameter.is_filled(answer.value)
    )


def expected_from_database(challenges):
    """Per-parameter answered counts and scheme methods, from the live rows."""
    answered = Counter()
    methods = Counter()
    for challenge in challenges:
        rows = {
            (a.task_id, a.number): a for a in Answer.objects.filter(challenge=challenge)
        }
        tasks = list(challenge.tasks.all())
        for parameter in PARAMETERS:
            if parameter.role == Role.CHALLENGE_NAME:
                ok = bool(challenge.name)
            elif parameter.level == "challenge":
                ok = _filled(parameter, rows.get((None, parameter.number)))
            else:
                ok = bool(tasks) and all(
                    _filled(parameter, rows.get((t.pk, parameter.number)))
                    for t in tasks
                )
            answered[parameter.number] += ok
        methods.update(t.scheme["method"] for t in tasks if t.scheme)
    return answered, methods


def test_empty_registry_gives_zeros_everywhere(api):
    body = api.get(STATS).json()
    assert body["challenges"] == 0
    assert body["tasks"] == 0
    assert len(body["parameters"]) == len(PARAMETERS)
    assert {p["share"] for p in body["parameters"]} == {0.0}
    assert {p["total"] for p in body["parameters"]} == {0}
    assert all(counts == {} for counts in body["distributions"].values())
    assert body["amendments"]["total"] == 0
    assert body["deviations"]["published"] == 0
    page = api.get("/statistics/")
    assert page.status_code == 200
    assert b"No registered design in this selection yet" in page.content
    assert api.get("/statistics/registry-statistics.csv").status_code == 200


def test_numbers_equal_those_computed_from_the_database(api, call, organizer, chair):
    registered(
        call,
        organizer,
        chair,
        name="Alpha",
        tasks=("A1", "A2"),
        scheme=MSD_SCHEME
        | {"metric": "DSC", "missing": {"policy": "value", "value": 0}},
        skip={38},
    )
    registered(
        call,
        organizer,
        chair,
        name="Beta",
        scheme=AGGREGATE_SCHEME,
        not_applicable=[(7, None)],
    )
    challenges = Challenge.objects.filter(registration__isnull=False)
    answered, methods = expected_from_database(challenges)

    body = api.get(STATS).json()
    assert body["challenges"] == 2
    assert body["tasks"] == 3
    by_number = {p["number"]: p for p in body["parameters"]}
    for parameter in PARAMETERS:
        row = by_number[parameter.number]
        assert row["answered"] == answered[parameter.number], parameter.name
        assert row["total"] == 2
        assert row["share"] == answered[parameter.number] / 2
    assert by_number[38]["answered"] == 1  # Alpha skipped its test cases
    assert by_number[7]["answered"] == 1
    assert by_number[7]["not_applicable"] == 1
    assert body["distributions"]["method"] == dict(methods)
    assert body["distributions"]["method"] == {
        "test_then_rank": 2,
        "aggregate_then_rank": 1,
    }
    assert body["distributions"]["aggregate"] == {"mean": 2, "median": 1}
    assert body["distributions"]["missing_policy"] == {"value": 2, "ignore": 1}
    assert body["distributions"]["bootstrap"] == {"200": 2, "0": 1}
    assert body["distributions"]["test_cases"] == {"100": 1}
    assert body["distributions"]["metric"] == {"DSC": 3}


def test_csv_and_page_show_the_same_numbers(api, call, organizer, chair):
    registered(call, organizer, chair, name="Alpha", scheme=AGGREGATE_SCHEME, skip={38})
    body = api.get(STATS).json()
    rows = list(
        csv.DictReader(
            io.StringIO(api.get("/statistics/registry-statistics.csv").content.decode())
        )
    )
    answered = {
        int(r["key"]): int(r["count"])
        for r in rows
        if r["section"] == "parameter_answered"
    }
    assert answered == {p["number"]: p["answered"] for p in body["parameters"]}
    methods = {
        r["key"]: int(r["count"]) for r in rows if r["section"] == "distribution_method"
    }
    assert methods == body["distributions"]["method"]
    assert (
        api.get("/api/v1/statistics/statistics.csv").content
        == api.get("/statistics/registry-statistics.csv").content
    )
    page = api.get("/statistics/").content.decode()
    assert 'data-parameter="38"' in page
    assert "<svg" in page
    figure = api.get("/statistics/figures/method.svg")
    assert figure["Content-Type"] == "image/svg+xml"
    assert b"Aggregate then rank" in figure.content


def test_filters_by_call_and_year(api, call, organizer, chair):
    other = CallFactory(slug="isbi-2028", title="ISBI 2028")
    registered(call, organizer, chair, name="Alpha")
    other.chairs.add(chair)
    registered(other, organizer, chair, name="Beta", tasks=("B1", "B2"))
    assert api.get(STATS, {"call": "isbi-2028"}).json()["tasks"] == 2
    assert api.get(STATS, {"call": "miccai-2027"}).json()["challenges"] == 1
    year = Registration.objects.first().created.year
    assert api.get(STATS, {"year": year}).json()["challenges"] == 2
    assert api.get(STATS, {"year": year + 1}).json()["challenges"] == 0
    both = api.get(STATS, {"year": year, "call": "isbi-2028"}).json()
    assert both["by_call"] == [
        {"call": "isbi-2028", "title": "ISBI 2028", "challenges": 1, "tasks": 2}
    ]


@pytest.mark.parametrize(
    ("params", "field"), [({"call": "nope"}, "call"), ({"year": "20x7"}, "year")]
)
def test_bad_filters_are_refused_naming_the_field(api, params, field):
    response = api.get(STATS, params)
    assert response.status_code == 400
    assert field in response.json()
    page = api.get("/statistics/", params).content.decode()
    assert f'data-error-for="{field}"' in page
    message = f"{field}: {response.json()[field][0]}"
    # the downloads answer the same sentence, not a Python dict
    for url in (
        "/statistics/registry-statistics.csv",
        "/statistics/figures/method.svg",
    ):
        refused = api.get(url, params)
        assert refused.status_code == 400
        assert refused["Content-Type"] == "text/plain; charset=utf-8"
        assert refused.content.decode() == message


def test_statistics_are_recomputed_after_a_new_registration(
    api, call, organizer, chair
):
    assert api.get(STATS).json()["challenges"] == 0
    registered(call, organizer, chair, name="Alpha")
    assert api.get(STATS).json()["challenges"] == 1


def test_figure_labels_are_escaped():
    svg = bar_chart("a <b> & c", [Bar("<script>alert(1)</script>", 0.5, "1 & 2")])
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg
    assert "1 &amp; 2" in svg


def test_demo_statistics_page_shows_completeness_and_methods(api, demo_registered):
    registration, _ = demo_registered
    tasks = registration.challenge.tasks.count()
    body = api.get(STATS).json()
    assert body["challenges"] == 1
    assert body["distributions"]["method"] == {"test_then_rank": tasks}
    page = api.get("/statistics/").content.decode()
    assert "Completeness, parameter by parameter" in page
    assert "Test then rank" in page
    answered = sum(p["answered"] for p in body["parameters"])
    assert 0 < answered <= len(PARAMETERS)


def test_cached_statistics_follow_amendments_and_call_titles(
    api, call, organizer, chair
):
    registration = registered(call, organizer, chair, name="Alpha")
    assert api.get(STATS).json()["amendments"]["pending"] == 0
    propose_more_cases(registration, organizer)
    assert api.get(STATS).json()["amendments"]["pending"] == 1
    call.title = "MICCAI 2027 (Daejeon)"
    call.save()
    assert api.get(STATS).json()["by_call"][0]["title"] == "MICCAI 2027 (Daejeon)"


def test_long_distributions_end_in_one_other_bar():
    from publicrecord.figures import MAX_BARS, distribution_figure

    counts = {str(n): 100 - n for n in range(30)}
    svg = distribution_figure("Test cases", counts)
    assert svg.count("<title>") == MAX_BARS + 1  # the figure's and one per bar
    assert "11 other values" in svg


def test_a_task_without_scheme_counts_only_its_answers(api, call, organizer, chair):
    registered(call, organizer, chair, name="Prose only")  # no executable scheme
    body = api.get(STATS).json()
    assert body["tasks_without_scheme"] == 1
    assert body["distributions"]["method"] == {}
    assert body["distributions"]["bootstrap"] == {}
    example = Role.METRICS.parameter.example_value["metrics"]  # fill_proposal's
    assert body["distributions"]["metric"] == {m["name"]: 1 for m in example}
    assert body["distributions"]["test_cases"] == {"100": 1}


def test_parameter_table_stacks_into_cards_titled_by_number_and_name(
    client, call, organizer, chair
):
    # On phones each parameter is a card: "38 Number of test cases", then its
    # counts, each under its column's name (tests/stacked_tables.py).
    registered(call, organizer, chair, name="Alpha")
    html = client.get("/statistics/").text
    # the parameters, and the follow-the-registration list
    assert_cells_labelled_by_headers(html, tables=2)
    rows = lxml.html.fromstring(html).xpath("//table[@id='parameters']/tbody/tr")
    assert len(rows) == len(PARAMETERS)
    for row in rows:
        titles = row.xpath("./td[contains(concat(' ', @class, ' '), ' stack-title ')]")
        assert [td.get("data-label") for td in titles] == ["#", "Parameter"]


def test_csv_cells_a_spreadsheet_would_run_as_formulas_are_escaped(
    api, call, organizer, chair
):
    """Call titles and metric names are typed by people; opened in a
    spreadsheet, "=HYPERLINK(...)" must stay text (registry.spreadsheet)."""
    registration = registered(call, organizer, chair, name="Prose only")
    metric = {**Role.METRICS.parameter.example_value["metrics"][0]}
    metric["name"] = '=HYPERLINK("http://evil.example","DSC")'
    amendment = propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Renamed metric.",
        changes={"tasks": {"Brain": {"44": {"metrics": [metric], "details": ""}}}},
    )
    approve_amendment(amendment=amendment, actor=chair)
    call.title = "@SUM(1+1)"
    call.save()
    text = api.get("/statistics/registry-statistics.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    metrics = [r for r in rows if r["section"] == "distribution_metric"]
    assert [(r["key"], r["label"]) for r in metrics] == [
        ("'" + metric["name"], "'" + metric["name"])
    ]
    calls = [r["label"] for r in rows if r["section"] == "call_challenges"]
    assert calls == ["'@SUM(1+1)"]
    assert ",1,1,1.0000\n" in text  # numbers stay numbers
    assert not any(
        cell.startswith(("=", "+", "@")) for row in rows for cell in row.values()
    )


def test_csv_says_its_encoding(api, call, organizer, chair):
    """Without a charset, spreadsheets guess one and garble "Montréal"."""
    registered(call, organizer, chair, name="Alpha")
    call.title = "MICCAI 2027 (Montréal)"
    call.save()
    for url in ("/statistics/registry-statistics.csv", f"{STATS}statistics.csv"):
        response = api.get(url)
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert "MICCAI 2027 (Montréal)" in response.content.decode("utf-8")


@pytest.mark.parametrize(
    ("answered", "total", "text"),
    [
        (199, 200, "99.5 %"),
        (1999, 2000, "99.9 %"),
        (1, 2000, "0.1 %"),
        (2000, 2000, "100 %"),
        (0, 5, "0 %"),
        (1, 2, "50 %"),
        (1, 3, "33.3 %"),
        (0, 0, "–"),
    ],
)
def test_a_share_reads_100_or_0_percent_only_when_it_is(answered, total, text):
    """Rounded, 199 of 200 designs printed "100 %" beside "199/200"."""
    from publicrecord.figures import completeness_figure, share_text

    assert share_text(answered, total) == text
    row = {
        "number": 1,
        "name": "Name",
        "answered": answered,
        "total": total,
        "not_applicable": 0,
        "share": answered / total if total else 0.0,
    }
    if total:
        assert f"{text} ({answered}/{total})" in completeness_figure([row])


def test_statistics_table_prints_the_share_as_the_figure_does(
    client, call, organizer, chair
):
    registered(call, organizer, chair, name="Alpha", skip={38})
    registered(call, organizer, chair, name="Beta")
    registered(call, organizer, chair, name="Gamma")
    page = lxml.html.fromstring(client.get("/statistics/").content)
    share = page.xpath("//tr[@data-parameter='38']/td[@data-label='Share']")[0]
    assert share.text_content() == "66.7 %"
