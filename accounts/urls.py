from django.urls import include, path

from . import views

urlpatterns = [
    path("signup/", views.sign_up, name="signup"),
    path("", include("django.contrib.auth.urls")),
]
