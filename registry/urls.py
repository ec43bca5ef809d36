from django.urls import path

from . import views

app_name = "registry"

urlpatterns = [
    path("proposals/", views.dashboard, name="dashboard"),
]
