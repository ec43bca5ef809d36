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
        "analyses/<int:pk>/deviations/",
        api.AnalysisDeviations.as_view(),
        name="analysis-deviations",
    ),
]
