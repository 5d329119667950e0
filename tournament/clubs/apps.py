from django.apps import AppConfig

from . import errors  # noqa: F401  (registers the clubs' refusal codes at start)


class ClubsConfig(AppConfig):
    name = "tournament.clubs"
    label = "clubs"
    verbose_name = "Clubs"

    def ready(self) -> None:
        from tournament.interchange.exports import register_export_check
        from tournament.services.audit import register_audit_hook

        from .services import club_night_hook, refuse_small_night_files

        # a closed night is fixed (checked first, so a refused write bumps nothing), and the
        # club's pages made stale: the night read once for both
        register_audit_hook("club nights", club_night_hook)
        register_export_check("club night federation files", refuse_small_night_files)
