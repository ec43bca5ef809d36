from django.urls import path

from . import views

app_name = "characteristics"

characteristics = "results/versions/<int:pk>/case-characteristics/"
run = "case-models/<int:pk>/"

urlpatterns = [
    path(characteristics, views.page, name="page"),
    path(f"{characteristics}upload/", views.upload, name="upload"),
    path(f"{characteristics}commit/", views.commit, name="commit"),
    path("case-metadata/<int:pk>/models/", views.start, name="start"),
    path(run, views.run_page, name="run"),
    path(f"{run}body/", views.run_body, name="run-body"),
    path(f"{run}plots/<slug:kind>.png", views.run_plot, name="plot"),
    path(f"{run}output.json", views.run_output, name="output"),
    path(f"{run}report.pdf", views.run_report, name="report"),
]
