from django.urls import path

from . import api

urlpatterns = [
    path("statistics/", api.Statistics.as_view(), name="statistics"),
    path(
        "statistics/statistics.csv", api.StatisticsCsv.as_view(), name="statistics-csv"
    ),
    path(
        "registrations/<slug:identifier>/quality/",
        api.Quality.as_view(),
        name="registration-quality",
    ),
    path("me/", api.Me.as_view(), name="me"),
    path(
        "registrations/<slug:identifier>/feedback/",
        api.FeedbackThread.as_view(),
        name="feedback",
    ),
    path(
        "feedback/<int:pk>/answers/",
        api.FeedbackAnswers.as_view(),
        name="feedback-answers",
    ),
    path("feedback/<int:pk>/hide/", api.FeedbackHide.as_view(), name="feedback-hide"),
]

registration = "registrations/<slug:identifier>/"
version = f"{registration}versions/<int:number>/"
for prefix, suffix in ((registration, ""), (version, "-version")):
    urlpatterns += [
        path(f"{prefix}datacite.xml", api.DataCite.as_view(), name=f"datacite{suffix}"),
        path(f"{prefix}citation.json", api.CslJson.as_view(), name=f"csl-json{suffix}"),
        path(f"{prefix}citation.bib", api.BibTeX.as_view(), name=f"bibtex{suffix}"),
    ]
