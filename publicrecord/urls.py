from django.urls import path

from . import views

app_name = "publicrecord"

urlpatterns = [
    path("profile/", views.profile_page, name="profile"),
    path("statistics/", views.statistics_page, name="statistics"),
    path(
        "statistics/registry-statistics.csv",
        views.statistics_download,
        name="statistics-csv",
    ),
    path(
        "statistics/figures/<slug:name>.svg",
        views.statistics_figure,
        name="statistics-figure",
    ),
]
