from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Reviews"

    def ready(self) -> None:
        from registry.permissions import add_reader_rule

        from .permissions import ASSIGNED_REVIEWERS_READ

        add_reader_rule(ASSIGNED_REVIEWERS_READ)
