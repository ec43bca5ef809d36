from django.urls import path

from . import views, views_exports
from .views import amendments, plans, registrations, schemes

app_name = "registry"

proposal = "proposals/<int:pk>/"
task = f"{proposal}tasks/<int:task_pk>/"
registered = "registry/<slug:identifier>/"

urlpatterns = [
    path("proposals/", views.dashboard, name="dashboard"),
    path("proposals/import/", views_exports.import_proposal, name="import"),
    path(
        "proposals/<int:pk>/export.json",
        views_exports.export_json,
        name="export-json",
    ),
    path("proposals/<int:pk>/design.pdf", views_exports.design_pdf, name="design-pdf"),
    path("proposals/new/", views.new_proposal, name="new"),
    path(proposal, views.overview, name="overview"),
    path(f"{proposal}submit/", views.submit_proposal, name="submit"),
    path(f"{proposal}duplicate/", views.duplicate_proposal, name="duplicate"),
    path(f"{proposal}delete/", views.delete_proposal, name="delete"),
    path(f"{proposal}planning/", views.planning, name="planning"),
    path(f"{proposal}edit/", views.edit_first_section, name="edit"),
    path(f"{proposal}edit/<slug:section>/", views.edit_section, name="edit-section"),
    path(f"{task}edit/<slug:section>/", views.edit_section, name="edit-task-section"),
    path(f"{task}scheme/", schemes.task_scheme, name="task-scheme"),
    path(f"{task}plan/", plans.task_plan, name="task-plan"),
    path(f"{proposal}register/", registrations.register, name="register"),
    path("registry/", registrations.public_list, name="public-list"),
    path(
        "registry/chain-heads.txt",
        registrations.chain_heads_txt,
        name="chain-heads",
    ),
    path(
        "registry/chain-heads/<int:number>.txt",
        registrations.chain_heads_list_txt,
        name="chain-heads-list",
    ),
    path(
        "registry/chain-heads.pub",
        registrations.chain_heads_public_key,
        name="chain-heads-key",
    ),
    path(registered, registrations.public_detail, name="public-detail"),
    path(
        f"{registered}v<int:number>/design.pdf",
        registrations.version_pdf,
        name="version-pdf",
    ),
    path(f"{registered}amendments/", amendments.amendment_list, name="amendments"),
    path(f"{registered}amendments/new/", amendments.propose, name="propose-amendment"),
    path(
        f"{registered}amendments/<int:amendment_pk>/decide/",
        amendments.decide,
        name="decide-amendment",
    ),
    path(f"{proposal}tasks/add/", views.name_task, name="add-task"),
    path(f"{task}rename/", views.name_task, name="rename-task"),
    path(f"{task}move/", views.move_task, name="move-task"),
    path(f"{task}remove/", views.remove_task, name="remove-task"),
    path(f"{proposal}organizers/add/", views.add_co_organizer, name="add-organizer"),
    path(
        f"{proposal}organizers/<int:user_pk>/remove/",
        views.remove_co_organizer,
        name="remove-organizer",
    ),
]
