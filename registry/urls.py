from django.urls import path

from . import views, views_exports

app_name = "registry"

urlpatterns = [
    path("proposals/", views.dashboard, name="dashboard"),
    path("proposals/import/", views_exports.import_proposal, name="import"),
    path(
        "proposals/<int:pk>/export.json",
        views_exports.export_json,
        name="export-json",
    ),
    path("proposals/<int:pk>/design.pdf", views_exports.design_pdf, name="design-pdf"),
]
