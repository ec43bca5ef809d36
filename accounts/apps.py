from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib import admin

        from . import throttle  # noqa: F401 - connects the sign-in signal receivers
        from .forms import AdminSignInForm

        admin.site.login_form = AdminSignInForm
