"""Registry forms: a shared crispy mixin, small proposal forms and the editor."""

from .base import CrispyFormMixin
from .proposals import CoOrganizerForm, NewProposalForm, PlanningForm, TaskNameForm
from .section import ParameterBlock, SectionForm

__all__ = [
    "CoOrganizerForm",
    "CrispyFormMixin",
    "NewProposalForm",
    "ParameterBlock",
    "PlanningForm",
    "SectionForm",
    "TaskNameForm",
]
