"""The ranking-scheme page: form builder round trip, errors, JSON, preview."""

import json
import re

import lxml.html
import pytest
from django.urls import reverse

from ranking import parse_scheme, scheme_to_dict
from registry import services
from registry.forms.scheme import SchemeForm
from registry.models import Answer
from registry.schemes import registered_metrics, set_task_scheme
from tests.factories import UserFactory
from tests.schemes import mean_scheme, msd_scheme
from tests.stacked_tables import assert_cells_labelled_by_headers

pytestmark = pytest.mark.django_db

METRICS = {
    "metrics": [
        {"name": "DSC", "higher_is_better": True, "worst_value": 0},
        {"name": "NSD", "higher_is_better": True, "worst_value": 0},
        {"name": "HD95", "higher_is_better": False, "worst_value": 373},
    ],
    "details": "",
}

BASE = mean_scheme()

# Together these use every value of every field of the contract (§2).
SCHEMES = [
    BASE,
    {**BASE, "metric": ["DSC"]},
    {
        "metric": ["DSC", "HD95"],
        "combine": "mean_rank",
        "higher_is_better": {"DSC": True, "HD95": False},
        "missing": {"policy": "value", "value": {"DSC": 0, "HD95": 373}},
        "method": "rank_then_aggregate",
        "aggregate": "median",
        "ties": "average",
        "targets": "mean_average_rank",
        "consensus": "mean_average_rank",
        "uncertainty": {"bootstrap": 0, "rank_ci": [], "alpha": 0.1},
    },
    msd_scheme(
        without=("targets",),
        metric=["DSC", "NSD"],
        test={"name": "wilcoxon", "alpha": 0.01, "p_adjust": "holm"},
        ties="max",
        uncertainty={
            "bootstrap": 1000,
            "seed": 1,
            "rank_ci": ["bootstrap", "id_wilcoxon_one_sided"],
        },
    ),
    {
        **BASE,
        "missing": {"policy": "ignore"},
        "aggregate": {"quantile": 0.05},
        "test": {"p_adjust": "bonferroni", "method": "exact"},
        "uncertainty": {
            "bootstrap": 200,
            "seed": 7,
            "rank_ci": ["id_nemenyi", "id_wilcoxon_two_sided", "anova_tukey"],
            "alpha": 0.2,
        },
    },
    {
        "metric": "HD95",
        "higher_is_better": False,
        "missing": {"policy": "last_rank"},
        "method": "rank_then_aggregate",
        "aggregate": "mean",
        "ties": "min",
        "targets": "mean_rank",
    },
]


@pytest.fixture
def proposal(organizer, call):
    challenge = services.create_challenge(owner=organizer, call=call, name="Decathlon")
    brain = services.add_task(challenge=challenge, name="Brain", actor=organizer)
    liver = services.add_task(challenge=challenge, name="Liver", actor=organizer)
    for task in (brain, liver):
        services.answer_parameter(
            challenge=challenge, task=task, number=44, value=METRICS, actor=organizer
        )
    return challenge


@pytest.fixture
def task(proposal):
    return proposal.tasks.get(name="Brain")


@pytest.fixture
def signed_in(client, organizer):
    client.force_login(organizer)
    return client


def scheme_url(task):
    return reverse("registry:task-scheme", args=[task.challenge_id, task.pk])


def form_data(task, scheme):
    """What the page shows for `scheme`, as the browser would post it back."""
    form = SchemeForm(task=task, registered=registered_metrics(task))
    form.set_scheme_initial(scheme)
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is not None:
            data[name] = value
    return data


@pytest.mark.parametrize("original", SCHEMES)
def test_scheme_form_round_trips_every_option(signed_in, task, original):
    response = signed_in.post(
        scheme_url(task), {**form_data(task, original), "save": ""}
    )
    assert response.status_code == 302
    task.refresh_from_db()
    assert task.scheme == scheme_to_dict(parse_scheme(original))


def test_scheme_form_round_trip_keeps_a_stored_scheme_unchanged(
    signed_in, task, organizer
):
    set_task_scheme(task=task, scheme=SCHEMES[3], actor=organizer)
    task.refresh_from_db()
    stored = task.scheme
    signed_in.post(scheme_url(task), {**form_data(task, stored), "save": ""})
    task.refresh_from_db()
    assert task.scheme == stored


def test_scheme_page_shows_directions_from_parameter_44(signed_in, task):
    body = signed_in.get(scheme_url(task)).content.decode()
    assert "HD95 (lower is better)" in body
    assert "DSC (higher is better)" in body
    assert 'name="missing_value_2" value="373"' in body  # the worst value


def _words(text: str) -> set[str]:
    """The words of a legend or label, plural or not ("Metric(s)" = "metrics")."""
    words = re.findall(r"[a-z]+", text.lower().replace("(s)", ""))
    return {w.removesuffix("s") for w in words}


def _repeats(label: str, legend: str) -> bool:
    """The label says nothing the legend above it does not (or the reverse)."""
    return _words(label) <= _words(legend) or _words(legend) <= _words(label)


def test_scheme_boxes_do_not_repeat_their_legend_and_every_input_is_labelled(
    signed_in, task
):
    page = lxml.html.fromstring(signed_in.get(scheme_url(task)).content)
    boxes = page.xpath(
        '//form[@id="scheme-form"]//fieldset[legend][not(ancestor::fieldset)]'
    )
    assert [box.findtext("legend").strip() for box in boxes] == [
        legend for legend, _ in SchemeForm.GROUPS
    ]
    firsts = {}
    for box in boxes:
        # A field's label, or the legend of a group of checkboxes.
        first = box.xpath("(.//label | .//fieldset/legend)[1]")[0]
        firsts[box.findtext("legend").strip()] = first.text_content().strip()
    repeated = {
        legend: first for legend, first in firsts.items() if _repeats(first, legend)
    }
    assert repeated == {}
    inputs = page.xpath(
        "//input[not(@type='hidden')][not(@type='submit')] | //select | //textarea"
    )
    assert len(inputs) > 20
    for element in inputs:
        labels = page.xpath(f'//label[@for="{element.get("id")}"]')
        assert [
            label.text_content().strip()
            for label in labels
            if label.text_content().strip()
        ], element.get("name")


def test_scheme_page_without_metrics_links_to_the_metrics_parameter(
    signed_in, proposal, organizer
):
    bare = services.add_task(challenge=proposal, name="Lung", actor=organizer)
    body = signed_in.get(scheme_url(bare)).content.decode()
    section = reverse(
        "registry:edit-task-section",
        kwargs={"pk": proposal.pk, "task_pk": bare.pk, "section": "assessment-method"},
    )
    assert 'id="no-metrics"' in body
    assert "Answer parameter 44 (metrics" in body
    assert f'href="{section}#p44"' in body


def test_scheme_page_invalid_scheme_names_field_and_keeps_input(signed_in, task):
    data = {
        **form_data(task, {**BASE, "aggregate": {"quantile": 0.5}}),
        "quantile": "1.5",
        "test_alpha": "0.2",
        "save": "",
    }
    response = signed_in.post(scheme_url(task), data)
    assert response.status_code == 400
    body = response.content.decode()
    assert (
        '<div class="invalid-feedback d-block" data-error-for="quantile">'
        "aggregate.quantile: must be between 0 and 1</div>" in body
    )
    assert 'name="quantile" value="1.5"' in body
    assert 'name="test_alpha" value="0.2"' in body
    task.refresh_from_db()
    assert task.scheme is None
    assert not Answer.objects.filter(task=task, number=46).exists()


def test_scheme_page_last_rank_with_other_method_is_refused_at_the_policy(
    signed_in, task
):
    data = {
        **form_data(task, BASE),
        "missing_policy": "last_rank",
        "save": "",
    }
    body = signed_in.post(scheme_url(task), data).content.decode()
    assert 'data-error-for="missing_policy">missing.policy: ' in body


def test_scheme_page_saving_rewrites_prose_and_locks_it_in_editor(
    signed_in, task, organizer
):
    signed_in.post(scheme_url(task), {**form_data(task, SCHEMES[3]), "save": ""})
    assert "Wilcoxon" in Answer.objects.get(task=task, number=46).value
    url = reverse(
        "registry:edit-task-section",
        args=[task.challenge_id, task.pk, "assessment-method"],
    )
    body = signed_in.get(url).content.decode()
    assert 'data-derived="p46"' in body
    assert "derived from the ranking scheme" in body
    # A posted prose value for a derived parameter is ignored, not saved.
    signed_in.post(url, {"p46": "Whatever we like", "save": ""})
    assert "Wilcoxon" in Answer.objects.get(task=task, number=46).value


def test_scheme_page_apply_to_all_tasks(signed_in, proposal, task):
    data = {**form_data(task, SCHEMES[0]), "apply_to_all": "1", "save": ""}
    assert signed_in.post(scheme_url(task), data).status_code == 302
    assert [t.scheme["method"] for t in proposal.tasks.all()] == [
        "aggregate_then_rank",
        "aggregate_then_rank",
    ]


def test_scheme_page_apply_to_all_refused_for_one_task_saves_none(
    signed_in, proposal, task, organizer
):
    liver = proposal.tasks.get(name="Liver")
    services.answer_parameter(
        challenge=proposal,
        task=liver,
        number=44,
        actor=organizer,
        value={"metrics": [{"name": "NSD", "higher_is_better": True}], "details": ""},
    )
    data = {**form_data(task, SCHEMES[0]), "apply_to_all": "1", "save": ""}
    response = signed_in.post(scheme_url(task), data)
    assert response.status_code == 400
    assert "Task Liver: scheme.metric: &#x27;DSC&#x27; is not among" in (
        response.content.decode()
    )
    assert [t.scheme for t in proposal.tasks.all()] == [None, None]


def test_scheme_page_json_import_and_export(signed_in, task):
    response = signed_in.post(
        scheme_url(task),
        {"scheme_json": json.dumps(SCHEMES[4]), "import_json": ""},
    )
    assert response.status_code == 302
    task.refresh_from_db()
    assert task.scheme == scheme_to_dict(parse_scheme(SCHEMES[4]))
    body = signed_in.get(scheme_url(task)).content.decode()
    assert "&quot;quantile&quot;: 0.05" in body


def test_scheme_page_json_import_invalid_names_field(signed_in, task):
    bad = {**BASE, "ties": "random"}
    response = signed_in.post(
        scheme_url(task), {"scheme_json": json.dumps(bad), "import_json": ""}
    )
    assert response.status_code == 400
    assert "scheme.ties: must be one of" in response.content.decode()
    task.refresh_from_db()
    assert task.scheme is None


def test_scheme_page_preview_runs_without_saving(signed_in, task):
    data = {**form_data(task, SCHEMES[3]), "preview": ""}
    response = signed_in.post(scheme_url(task), data)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'data-preview="c_ideal"' in body
    assert 'data-preview="c_random"' in body
    assert "Iman–Davenport + one-sided Wilcoxon" in body  # the interval's label
    assert "Clear differences (simulated)" in body  # c_ideal in words
    task.refresh_from_db()
    assert task.scheme is None


def test_scheme_preview_rankings_stack_into_cards_titled_by_the_algorithm(
    signed_in, task
):
    data = {**form_data(task, SCHEMES[3]), "preview": ""}
    body = signed_in.post(scheme_url(task), data).content.decode()
    tables = lxml.html.fromstring(body).xpath("//section[@id='preview']//table")
    assert len(tables) == 4  # c_ideal and c_random, ranked by DSC and by NSD
    # Every preview table stacks, each value labelled by its column ...
    assert_cells_labelled_by_headers(body, tables=len(tables))
    # ... under the algorithm (the row header) as the card's title.
    for table in tables:
        assert "stack-compact" in table.classes
        titles = table.xpath("./tbody/tr/*[1]")
        assert [(t.tag, t.get("class")) for t in titles] == [("th", "stack-title")] * 5


def test_scheme_preview_prints_bootstrap_percentiles_as_reports_do(
    signed_in, task, monkeypatch
):
    from registry.scheme_preview import preview_scheme
    from registry.views import schemes

    def with_float_noise(scheme):
        results = preview_scheme(scheme)
        row = results[1].rankings[0].rows[0]
        row.bootstrap.update(median=1, lower=1, upper=3.0250000000000057)
        return results

    monkeypatch.setattr(schemes, "preview_scheme", with_float_noise)
    data = {**form_data(task, SCHEMES[3]), "preview": ""}
    body = signed_in.post(scheme_url(task), data).content.decode()
    assert "1 [1, 3.025]" in body
    assert "3.02500000" not in body
    assert "Bootstrap rank (median, 2.5–97.5 % percentiles)" in body


def test_scheme_page_other_user_gets_404(client, task):
    client.force_login(UserFactory())
    assert client.get(scheme_url(task)).status_code == 404
    assert client.post(scheme_url(task), form_data(task, BASE)).status_code == 404


def test_saving_a_scheme_over_typed_prose_shows_it_and_waits_for_confirmation(
    signed_in, task, organizer
):
    typed = "We adjust the p-values <b>with Holm</b>, by hand."
    services.answer_parameter(
        challenge=task.challenge, task=task, number=50, value=typed, actor=organizer
    )
    data = {**form_data(task, SCHEMES[0]), "save": ""}
    response = signed_in.post(scheme_url(task), data)
    assert response.status_code == 200
    task.refresh_from_db()
    assert task.scheme is None  # nothing saved yet
    page = lxml.html.fromstring(response.content.decode())
    [shown] = page.xpath("//*[@id='replaced-answers']//*[@data-replaced]")
    assert shown.get("data-replaced") == "50"
    assert shown.xpath(".//del")[0].text_content() == typed  # escaped, as typed
    assert "applies to test-based ranking only" in shown.xpath(".//ins")[0].text
    assert page.xpath("//*[@id='replaced-answers']//button[@name='confirm_replace']")

    confirmed = signed_in.post(scheme_url(task), {**data, "confirm_replace": "1"})
    assert confirmed.status_code == 302
    assert Answer.objects.get(task=task, number=50).value != typed


def test_saving_a_scheme_again_replaces_its_own_prose_without_asking(
    signed_in, task, organizer
):
    set_task_scheme(task=task, scheme=SCHEMES[0], actor=organizer)
    data = {**form_data(task, SCHEMES[3]), "save": ""}
    assert signed_in.post(scheme_url(task), data).status_code == 302
    task.refresh_from_db()
    assert task.scheme["method"] == SCHEMES[3]["method"]
