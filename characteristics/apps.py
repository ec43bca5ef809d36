from django.apps import AppConfig


class CharacteristicsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "characteristics"
    verbose_name = "Case characteristics"
