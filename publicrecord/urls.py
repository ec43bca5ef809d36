from django.urls import path

from . import oai_views, views

app_name = "publicrecord"
THREAD = "registry/<slug:identifier>/feedback/"

urlpatterns = [
    path("oai", oai_views.oai_endpoint, name="oai"),
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
    path(f"{THREAD}", views.feedback_page, name="feedback"),
    path(f"{THREAD}<int:pk>/answer/", views.feedback_answer, name="feedback-answer"),
    path(f"{THREAD}<int:pk>/hide/", views.feedback_hide, name="feedback-hide"),
]
