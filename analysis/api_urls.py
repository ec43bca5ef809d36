from django.urls import include, path

from . import api, api_plans

analysis = [
    path("", api.AnalysisDetail.as_view(), name="analysis"),
    path("retry/", api.AnalysisRetry.as_view(), name="analysis-retry"),
    path("deviations/", api.AnalysisDeviations.as_view(), name="analysis-deviations"),
    path("report.pdf", api.AnalysisReport.as_view(), name="report"),
    path("tables/", api.AnalysisTables.as_view(), name="tables"),
]

urlpatterns = [
    path(
        "registrations/<slug:identifier>/results/",
        api.ResultsUpload.as_view(),
        name="results-upload",
    ),
    path("results/<int:pk>/analyses/", api.AnalysisCreate.as_view(), name="analyses"),
    path("analyses/<int:pk>/", include(analysis)),
    path(
        "analysis-requests/<uuid:request_id>/",
        api.StartRequestDetail.as_view(),
        name="analysis-request",
    ),
    path(
        "tasks/<int:pk>/plan-runs/",
        api_plans.PlanRunCreate.as_view(),
        name="plan-runs",
    ),
    path("plan-runs/<int:pk>/", api_plans.PlanRunDetail.as_view(), name="plan-run"),
]
