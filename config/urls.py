from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from registry import views as registry_views

from . import health
from .api import ApiRoot

# One "api" namespace for every app's v1 endpoints.
api_v1 = [
    path("", ApiRoot.as_view(), name="root"),
    path("", include("registry.api_urls")),
    path("", include("reviews.api_urls")),
    path("", include("analysis.api_urls")),
    path("", include("characteristics.api_urls")),
    path("", include("publicrecord.api_urls")),
]


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page says. `static` is called
    per request: with the manifest storage it needs collectstatic's manifest."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("health/", health.health, name="health"),
    path("ready/", health.ready, name="ready"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/v1/", include((api_v1, "api"), namespace="api")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("reviews/", include("reviews.urls")),
    path("", registry_views.home, name="home"),
    path("", include("registry.urls")),
    path("", include("analysis.urls")),
    path("", include("characteristics.urls")),
    path("", include("publicrecord.urls")),
]

handler404 = "config.api.not_found"
