"""A test-set plan's figure is drawn once, not on every page load (0.1–0.2 s per
task): the cache keeps it by the plan's SHA-256 and the chosen n."""

import re

import pytest
from django.core.cache import cache
from django.urls import reverse
from matplotlib.figure import Figure

from registry.plan_figure import cached_plan_figure_data_uri, plan_figure_data_uri
from registry.test_set_plans import attach_plan
from tests.registry.helpers import proposal_with_scheme
from tests.registry.test_test_set_plans import INPUTS, SCHEME

pytestmark = pytest.mark.django_db


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


@pytest.fixture
def draft_plan(call, organizer):
    draft = proposal_with_scheme(call, organizer, SCHEME)
    task = attach_plan(task=draft.tasks.get(), inputs=INPUTS, actor=organizer)
    return task.test_set_plan
