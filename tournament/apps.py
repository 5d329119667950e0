from django.apps import AppConfig


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # Register the Celery app so shared tasks bind to our configuration.
        from . import celery  # noqa: F401
        from .services.audit import bump_tournament_versions, register_audit_hook

        register_audit_hook("tournament versions", bump_tournament_versions)
