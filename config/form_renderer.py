"""Form widgets rendered from templates without nested includes.

Django's widget templates include one another (``checkbox.html`` includes
``input.html``, which includes ``attrs.html``), and each include costs a
context push and a node walk per widget. The amendment form renders ~450
widgets: the includes were ~20 ms of its ~145 ms CPU (issue 28). This renderer
finds the same templates in the same order as Django's default one and serves
each with its plain includes of Django's widget templates replaced by their
source, which renders the same bytes: an include without ``with`` or ``only``
renders the included text in the same context. Templates that could tell the
difference (inheritance, libraries, cycle state) are left as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

import django.forms
from django.forms.renderers import DjangoTemplates
from django.template import Origin, TemplateDoesNotExist
from django.template.loaders import filesystem
from django.template.utils import get_app_template_dirs
from django.utils.functional import cached_property

FORMS_TEMPLATES = Path(django.forms.__file__).parent / "templates"
# `{% include "django/forms/widgets/attrs.html" %}`, the plain form only
PLAIN_INCLUDE = re.compile(r'{% include "(django/forms/widgets/[a-z_]+\.html)" %}')
# Tags whose meaning depends on being in a template of their own.
NOT_INLINED = re.compile(r"{%\s*(extends|block|load|cycle|resetcycle|ifchanged)\b")


class InliningLoader(filesystem.Loader):
    """Django's form templates, then the apps' (as the default form renderer
    looks them up), with plain includes of Django's widget templates inlined."""

    def get_dirs(self) -> list:
        return [*self.engine.dirs, *get_app_template_dirs("templates")]

    def get_contents(self, origin: Origin) -> str:
        return PLAIN_INCLUDE.sub(self._inlined, super().get_contents(origin))

    def _inlined(self, include: re.Match) -> str:
        source = self._source(include[1])
        return include[0] if source is None or NOT_INLINED.search(source) else source

    def _source(self, name: str) -> str | None:
        """The inlined text of template `name`, None when it is not found."""
        for origin in self.get_template_sources(name):
            try:
                return self.get_contents(origin)
            except TemplateDoesNotExist:
                continue
        return None


class FormRenderer(DjangoTemplates):
    """Django's default form renderer, its widget templates inlined (cached
    like the default's)."""

    @cached_property
    def engine(self):
        return self.backend(
            {
                "APP_DIRS": False,
                "DIRS": [FORMS_TEMPLATES],
                "NAME": "djangoforms",
                "OPTIONS": {
                    "loaders": [
                        (
                            "django.template.loaders.cached.Loader",
                            ["config.form_renderer.InliningLoader"],
                        )
                    ]
                },
            }
        )
