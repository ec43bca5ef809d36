from django.urls import path

from . import harvest_views, views

app_name = "publicrecord"
THREAD = "registry/<slug:identifier>/feedback/"

urlpatterns = [
    path("oai", harvest_views.oai_endpoint, name="oai"),
    path("robots.txt", harvest_views.robots, name="robots"),
    path("sitemap.xml", harvest_views.sitemap, name="sitemap"),
    path("sitemap-pages.xml", harvest_views.sitemap_pages, name="sitemap-pages"),
    path(
        "sitemap-registrations-<int:page>.xml",
        harvest_views.sitemap_registrations,
        name="sitemap-registrations",
    ),
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
