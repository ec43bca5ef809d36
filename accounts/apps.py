from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib import admin

        from . import (  # noqa: F401 - connect their signal receivers
            outage_tokens,
            throttle,
        )
        from .forms import AdminSignInForm

        admin.site.login_form = AdminSignInForm
