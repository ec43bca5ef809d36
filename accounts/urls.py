from django.contrib.auth.views import LoginView
from django.urls import include, path

from . import views
from .forms import SignInForm

urlpatterns = [
    path("login/", LoginView.as_view(authentication_form=SignInForm), name="login"),
    path("signup/", views.sign_up, name="signup"),
    path("signup/sent/", views.sign_up_sent, name="signup-sent"),
    path("confirm/<str:token>/", views.confirm, name="confirm-email"),
    path("", include("django.contrib.auth.urls")),
]
