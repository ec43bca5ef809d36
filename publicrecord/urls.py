from django.urls import path

from . import harvest_views, orcid_views, results_views, views

app_name = "publicrecord"
THREAD = "registry/<slug:identifier>/feedback/"
RESULTS = "registry/<slug:identifier>/results/"

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
    path(
        "sitemap-results-<int:page>.xml",
        harvest_views.sitemap_results,
        name="sitemap-results",
    ),
    path("profile/", views.profile_page, name="profile"),
    path("profile/orcid/", orcid_views.orcid_start, name="orcid-start"),
    path("profile/orcid/return/", orcid_views.orcid_return, name="orcid-return"),
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
    path(RESULTS, results_views.results_page, name="results"),
    path(
        f"{RESULTS}<int:number>/",
        results_views.results_version,
        name="results-version",
    ),
    path(
        f"{RESULTS}<int:number>/figure.svg",
        results_views.results_figure,
        name="results-figure",
    ),
    path(
        f"{RESULTS}<int:number>/<str:name>",
        results_views.results_download,
        name="results-download",
    ),
    path("analyses/<int:pk>/publish/", results_views.publish_page, name="publish"),
    path(f"{THREAD}", views.feedback_page, name="feedback"),
    path(f"{THREAD}<int:pk>/answer/", views.feedback_answer, name="feedback-answer"),
    path(f"{THREAD}<int:pk>/hide/", views.feedback_hide, name="feedback-hide"),
]
