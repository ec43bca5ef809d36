from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo accounts, designs and the MSD story (`manage.py load_demo`)."""

    name = "demo"
    verbose_name = "Demo data"
