from django.apps import AppConfig
from django.db.backends.signals import connection_created


class AuditConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "audit"
    verbose_name = "Audit log"

    def ready(self) -> None:
        from . import checks  # noqa: F401 (registers the deploy check)
        from .record_guard import install_guard_function

        connection_created.connect(
            install_guard_function, dispatch_uid="audit.record_guard"
        )
