from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from registry import views as registry_views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("api/v1/", include(("registry.api_urls", "api"), namespace="api")),
    path("api/v1/", include(("analysis.api_urls", "analysis-api"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("", registry_views.home, name="home"),
    path("", include("registry.urls")),
]
