from django.urls import path

from . import api

urlpatterns = [
    path("statistics/", api.Statistics.as_view(), name="statistics"),
    path(
        "statistics/statistics.csv", api.StatisticsCsv.as_view(), name="statistics-csv"
    ),
]
