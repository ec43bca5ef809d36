from django.apps import AppConfig


class RegistryConfig(AppConfig):
    name = "registry"
    verbose_name = "Challenge registry"

    def ready(self) -> None:
        # verify_registrations (and a restore's check) re-hashes the stored
        # pilot tables that registered test-set plans name
        from .verifiers import Verifier, add_verifier

        add_verifier(
            Verifier("pilot tables", "registry.pilot_table_checks.verify_pilot_tables")
        )
