from django.urls import path

from . import views
from .views import plan_runs

app_name = "analysis"

registration = "results/<slug:identifier>/"
upload = f"{registration}upload/<str:token>/"
run = "analyses/<int:pk>/"

urlpatterns = [
    path(
        "proposals/<int:pk>/tasks/<int:task_pk>/plan/background/",
        plan_runs.start_plan,
        name="start-plan",
    ),
    path("plan-runs/<int:pk>/", plan_runs.plan_run_page, name="plan-run"),
    path("plan-runs/<int:pk>/body/", plan_runs.plan_run_body, name="plan-run-body"),
    path(registration, views.results_page, name="results"),
    path(f"{registration}upload/", views.upload_results, name="upload"),
    path(upload, views.preview_upload, name="preview"),
    path(f"{upload}commit/", views.commit_upload, name="commit"),
    path(f"{upload}cancel/", views.cancel_upload, name="cancel"),
    path("results/versions/<int:pk>/analyses/", views.start_run, name="start"),
    path(run, views.analysis_page, name="run"),
    path(f"{run}body/", views.analysis_body, name="run-body"),
    path(f"{run}retry/", views.retry_run, name="retry"),
    path(f"{run}output.json", views.analysis_output, name="output"),
    path(f"{run}plots/<slug:kind>.png", views.analysis_plot, name="plot"),
    path(f"{run}tables/<slug:name>.csv", views.analysis_table, name="table"),
]
