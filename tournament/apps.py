from django.apps import AppConfig


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # Register the Celery app so shared tasks bind to our configuration.
        from . import celery  # noqa: F401
