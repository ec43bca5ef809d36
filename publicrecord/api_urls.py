from django.urls import include, path

from . import api, results_api


def citations(suffix: str) -> list:
    """The citation formats of a registration, or of one version of it."""
    return [
        path("datacite.xml", api.DataCite.as_view(), name=f"datacite{suffix}"),
        path(
            "datacite.json",
            api.DataCiteJson.as_view(),
            name=f"datacite-json{suffix}",
        ),
        path("citation.json", api.CslJson.as_view(), name=f"csl-json{suffix}"),
        path("citation.bib", api.BibTeX.as_view(), name=f"bibtex{suffix}"),
    ]


registration = [
    path("quality/", api.Quality.as_view(), name="registration-quality"),
    path("feedback/", api.FeedbackThread.as_view(), name="feedback"),
    path("publications/", results_api.Publications.as_view(), name="publications"),
    path(
        "publications/<int:number>/",
        results_api.PublicationDetail.as_view(),
        name="publication",
    ),
    *citations(""),
    path("versions/<int:number>/", include(citations("-version"))),
]
feedback = [
    path("answers/", api.FeedbackAnswers.as_view(), name="feedback-answers"),
    path("hide/", api.FeedbackHide.as_view(), name="feedback-hide"),
]

urlpatterns = [
    path("statistics/", api.Statistics.as_view(), name="statistics"),
    path(
        "statistics/statistics.csv", api.StatisticsCsv.as_view(), name="statistics-csv"
    ),
    path("statistics/follow-up/", results_api.FollowUp.as_view(), name="follow-up"),
    path("me/", api.Me.as_view(), name="me"),
    path("registrations/<slug:identifier>/", include(registration)),
    path("feedback/<int:pk>/", include(feedback)),
]
