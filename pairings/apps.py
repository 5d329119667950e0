from django.apps import AppConfig

from . import errors  # noqa: F401  (registers the pairing shell's refusal codes at start)


class PairingsConfig(AppConfig):
    name = "pairings"
    verbose_name = "Pairings"
