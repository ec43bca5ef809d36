"""The form renderer inlines Django's nested widget templates and renders the
same bytes as Django's default renderer (config/form_renderer.py)."""

import datetime as dt
import re

import pytest
from django import forms
from django.forms.renderers import DjangoTemplates
from django.template.loader_tags import IncludeNode
from django.test import override_settings
from django.urls import reverse

from config.form_renderer import FormRenderer
from tests.registry.helpers import proposal_with_scheme
from tests.schemes import SIGNIFICANCE_SCHEME

ATTRS = {"class": "form-control", "data-na": "", "required": True, "hidden": False}
CHOICES = [("a", "A & B"), ("Group", [("c", "C"), ("d", "<D>")]), ("e", "E")]
WIDGETS = [
    forms.TextInput(attrs=ATTRS),
    forms.NumberInput(attrs=ATTRS),
    forms.EmailInput(),
    forms.URLInput(),
    forms.PasswordInput(render_value=True),
    forms.HiddenInput(),
    forms.MultipleHiddenInput(),
    forms.DateInput(),
    forms.DateTimeInput(),
    forms.TimeInput(),
    forms.Textarea(attrs=ATTRS),
    forms.CheckboxInput(attrs={"class": "form-check-input"}),
    forms.Select(attrs=ATTRS, choices=CHOICES),
    forms.NullBooleanSelect(),
    forms.SelectMultiple(choices=CHOICES),
    forms.RadioSelect(choices=CHOICES),
    forms.CheckboxSelectMultiple(attrs={"class": "x"}, choices=CHOICES),
    forms.ClearableFileInput(),
    forms.SplitDateTimeWidget(),
    forms.SelectDateWidget(years=[2026, 2027]),
]
VALUES = [None, "", "x", "a", ["a", "d"], True, "<b>'\"", dt.datetime(2027, 1, 2, 3, 4)]


@pytest.mark.parametrize("widget", WIDGETS, ids=lambda w: type(w).__name__)
def test_every_django_widget_renders_the_same_bytes_as_django_renders_it(widget):
    ours, django_s = FormRenderer(), DjangoTemplates()
    rendered = 0
    for value in VALUES:
        attrs = {"id": "id_f"}
        try:
            expected = widget.render("f", value, attrs, renderer=django_s)
        except (AttributeError, TypeError, ValueError):
            continue  # not a value of this widget
        assert widget.render("f", value, attrs, renderer=ours) == expected, value
        rendered += 1
    assert rendered >= 3


@pytest.mark.parametrize(
    "name", ["input", "checkbox", "textarea", "select_option", "checkbox_option"]
)
def test_nested_widget_templates_are_inlined(name):
    template = FormRenderer().get_template(f"django/forms/widgets/{name}.html")
    assert template.template.nodelist.get_nodes_by_type(IncludeNode) == []


def test_a_dynamic_include_is_left_as_it_is():
    template = FormRenderer().get_template("django/forms/widgets/select.html")
    assert len(template.template.nodelist.get_nodes_by_type(IncludeNode)) == 1


@pytest.mark.django_db
def test_the_amendment_form_page_is_the_same_html_with_either_renderer(
    client, call, organizer, chair
):
    from registry.registration import register_challenge

    challenge = proposal_with_scheme(call, organizer, SIGNIFICANCE_SCHEME)
    challenge.status = "accepted"
    challenge.save()
    registration = register_challenge(challenge=challenge, actor=chair)
    client.force_login(organizer)
    url = reverse("registry:propose-amendment", args=[registration.identifier])

    def page() -> str:
        html = client.get(url).content.decode()
        return re.sub(r'(name="csrfmiddlewaretoken" value=)"[^"]+"', r"\1", html)

    ours = page()
    with override_settings(FORM_RENDERER="django.forms.renderers.DjangoTemplates"):
        django_s = page()
    assert ours.count("<textarea") > 50
    assert ours == django_s
