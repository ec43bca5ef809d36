from django.urls import path

from . import api

urlpatterns = [
    path(
        "results/<int:pk>/case-metadata/",
        api.CaseMetadata.as_view(),
        name="case-metadata",
    ),
    path(
        "case-metadata/<int:pk>/models/",
        api.CaseModelCreate.as_view(),
        name="case-models",
    ),
    path("case-models/<int:pk>/", api.CaseModelDetail.as_view(), name="case-model"),
    path(
        "case-models/<int:pk>/report.pdf",
        api.CaseModelReport.as_view(),
        name="case-model-report",
    ),
]
