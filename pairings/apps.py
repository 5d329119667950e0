from django.apps import AppConfig


class PairingsConfig(AppConfig):
    name = "pairings"
    verbose_name = "Pairings"
