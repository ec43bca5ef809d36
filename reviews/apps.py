from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Reviews"

    def ready(self) -> None:
        from registry.chair_conflicts import add_conflict_rule
        from registry.permissions import add_reader_rule

        from .conflicts import conflict_reason
        from .permissions import ASSIGNED_REVIEWERS_READ

        add_reader_rule(ASSIGNED_REVIEWERS_READ)
        # chairs in conflict by the reviewers' rules neither decide on the
        # amendments of a registered design nor register it
        add_conflict_rule(conflict_reason)

        from . import signals  # noqa: F401 (connects the receivers)
