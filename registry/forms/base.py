"""The crispy helper every registry form shares (built once, in `__init__`)."""

from __future__ import annotations

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit


class CrispyFormMixin:
    """Give a form a bootstrap5 `FormHelper` with one submit button.

    Subclasses set `submit_label` (or None for no button) and may set
    `form_action` / `form_class`; templates render them with `{% crispy form %}`.
    """

    submit_label: str | None = "Save"
    submit_accesskey: str = "s"
    form_class: str = ""
    form_action: str = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper(self)
        self.helper.form_method = "post"
        self.helper.form_class = self.form_class
        if self.form_action:
            self.helper.form_action = self.form_action
        if self.submit_label:
            self.helper.add_input(
                Submit(
                    "save",
                    self.submit_label,
                    css_class="btn-primary",
                    accesskey=self.submit_accesskey,
                )
            )
