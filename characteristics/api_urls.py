from django.urls import include, path

from . import api

case_model = [
    path("", api.CaseModelDetail.as_view(), name="case-model"),
    path("report.pdf", api.CaseModelReport.as_view(), name="case-model-report"),
]

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
    path("case-models/<int:pk>/", include(case_model)),
]
