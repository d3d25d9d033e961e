from django.apps import AppConfig


class DrivesConfig(AppConfig):
    name = "drives"
    verbose_name = "Drive catalog"
