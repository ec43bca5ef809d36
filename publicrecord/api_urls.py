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
]
