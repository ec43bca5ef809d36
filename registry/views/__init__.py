"""Organizer-facing pages. Views parse and render; services do the work."""

from .editor import edit_first_section, edit_section, planning
from .proposals import (
    dashboard,
    delete_proposal,
    duplicate_proposal,
    home,
    new_proposal,
    overview,
    submit_proposal,
)
from .tasks import (
    add_co_organizer,
    move_task,
    name_task,
    remove_co_organizer,
    remove_task,
)

__all__ = [
    "add_co_organizer",
    "dashboard",
    "delete_proposal",
    "duplicate_proposal",
    "edit_first_section",
    "edit_section",
    "home",
    "move_task",
    "name_task",
    "new_proposal",
    "overview",
    "planning",
    "remove_co_organizer",
    "remove_task",
    "submit_proposal",
]
