from django.urls import path

from . import api

urlpatterns = [
    path(
        "registrations/<slug:identifier>/results/",
        api.ResultsUpload.as_view(),
        name="results-upload",
    ),
    path("results/<int:pk>/analyses/", api.AnalysisCreate.as_view(), name="analyses"),
    path("analyses/<int:pk>/", api.AnalysisDetail.as_view(), name="analysis"),
    path(
        "analyses/<int:pk>/retry/", api.AnalysisRetry.as_view(), name="analysis-retry"
    ),
    path(
        "analyses/<int:pk>/deviations/",
        api.AnalysisDeviations.as_view(),
        name="analysis-deviations",
    ),
    path("analyses/<int:pk>/report.pdf", api.AnalysisReport.as_view(), name="report"),
    path("analyses/<int:pk>/tables/", api.AnalysisTables.as_view(), name="tables"),
]
