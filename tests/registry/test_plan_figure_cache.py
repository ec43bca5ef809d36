"""A test-set plan's figure is drawn once, not on every page load (0.5–0.8 s
of CPU per task): it is stored by the plan's SHA-256 and the chosen n (a file,
kept across restarts and processes) and cached; attaching a plan stores it, so
even the first page load of a new plan does not draw it (issue 28)."""

import re

import pytest
from django.core.cache import cache
from django.urls import reverse
from matplotlib.figure import Figure

from registry.plan_figure import cached_plan_figure_data_uri, plan_figure_data_uri
from registry.schemes import set_task_scheme
from registry.test_set_plans import attach_computed_plan, attach_plan
from tests.factories import TaskFactory
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import INPUTS, SCHEME

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _own_storage(settings, tmp_path):
    """Each test starts without stored figures."""
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def drawings(monkeypatch):
    """How often matplotlib saved a figure (the real savefig still runs)."""
    calls = []
    savefig = Figure.savefig

    def counted(self, *args, **kwargs):
        calls.append(self)
        return savefig(self, *args, **kwargs)

    cache.clear()
    monkeypatch.setattr(Figure, "savefig", counted)
    return calls


def figures(html: str) -> list[str]:
    return re.findall(r'src="(data:image/png;base64,[^"]+)"', html)


def test_a_second_page_load_does_not_draw_the_plan_again(
    client, call, organizer, drawings
):
    draft = proposal_with_scheme(call, organizer, SCHEME)
    task = draft.tasks.get()
    attach_plan(task=task, inputs=INPUTS, actor=organizer)
    client.force_login(organizer)
    url = reverse("registry:task-plan", args=[draft.pk, task.pk])
    first = figures(client.get(url).text)
    assert len(first) == 1
    assert len(drawings) == 1
    second = figures(client.get(url).text)
    assert second == first
    assert len(drawings) == 1  # served from the cache: matplotlib not called


def test_the_cached_figure_is_the_drawn_one_per_chosen_n(draft_plan, drawings):
    drawn = plan_figure_data_uri(draft_plan, 50)
    assert cached_plan_figure_data_uri(draft_plan, 50) == drawn
    assert cached_plan_figure_data_uri(draft_plan, 50) == drawn
    assert len(drawings) == 2  # the direct drawing and the first cached one
    # Another chosen n marks another line: its own figure, drawn once.
    assert cached_plan_figure_data_uri(draft_plan, 100) != drawn
    assert len(drawings) == 3


def test_a_stored_figure_is_not_drawn_again_after_the_cache_is_emptied(
    draft_plan, drawings
):
    first = cached_plan_figure_data_uri(draft_plan, 50)
    cache.clear()  # a restart, or another process with its own memory cache
    assert cached_plan_figure_data_uri(draft_plan, 50) == first
    assert len(drawings) == 1


def test_attaching_a_plan_stores_its_figure_for_the_first_page_load(
    client, call, organizer, drawings, django_capture_on_commit_callbacks
):
    draft = proposal_with_scheme(call, organizer, SCHEME)
    task = draft.tasks.get()
    with django_capture_on_commit_callbacks(execute=True):
        attach_plan(task=task, inputs=INPUTS, actor=organizer)
    assert len(drawings) == 1  # drawn when attached
    cache.clear()
    client.force_login(organizer)
    html = client.get(reverse("registry:overview", args=[draft.pk])).text
    assert len(figures(html)) == 1
    assert len(drawings) == 1  # the page read the stored figure


@pytest.fixture
def draft_plan(call, organizer):
    draft = proposal_with_scheme(call, organizer, SCHEME)
    task = attach_plan(task=draft.tasks.get(), inputs=INPUTS, actor=organizer)
    return task.test_set_plan


def overview_queries(client, challenge) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("registry:overview", args=[challenge.pk]))
    assert len(figures(response.text)) == challenge.tasks.count()
    return len(queries)


def test_the_overview_of_planned_tasks_costs_the_same_queries_at_1_and_3_tasks(
    client, call, organizer, drawings, django_capture_on_commit_callbacks
):
    draft = proposal_with_scheme(call, organizer, SCHEME)
    with django_capture_on_commit_callbacks(execute=True):
        plan = attach_plan(
            task=draft.tasks.get(), inputs=INPUTS, actor=organizer
        ).test_set_plan
    client.force_login(organizer)
    one = overview_queries(client, draft)
    for name in ("Heart", "Liver"):
        task = TaskFactory(challenge=draft, name=name)
        set_task_scheme(task=task, scheme=SCHEME, actor=organizer)
        with django_capture_on_commit_callbacks(execute=True):
            attach_computed_plan(task=task, plan=plan, actor=organizer)
    cache.clear()
    three = overview_queries(client, draft)
    assert one <= 14
    assert three == one
    # Brain has its chosen n (parameter 38 answered), the new tasks none: two
    # figures, each drawn once when attached, none by the pages.
    assert len(drawings) == 2


def test_the_error_band_stays_within_the_range_of_its_quantity():
    """τ near 1 with a wide standard error: the band stops at 1, not above."""
    from registry.plan_figure import PANELS, band

    bounds = {key: limits for key, _title, _ylim, limits in PANELS}
    lower, upper = band([0.99, 0.5], [0.02, 0.1], bounds["kendall_tau"])
    assert upper == pytest.approx([1.0, 0.7])
    assert lower == pytest.approx([0.95, 0.3])
    lower, upper = band([0.01], [0.05], bounds["p_winner"])
    assert (lower, upper) == ([0.0], pytest.approx([0.11]))
    assert band([2.0], [5.0], bounds["rank_interval_width"]) == ([0.0], [12.0])
