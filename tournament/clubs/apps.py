from django.apps import AppConfig

from . import errors  # noqa: F401  (registers the clubs' refusal codes at start)


class ClubsConfig(AppConfig):
    name = "tournament.clubs"
    label = "clubs"
    verbose_name = "Clubs"

    def ready(self) -> None:
        from tournament.interchange.exports import register_export_check
        from tournament.services.audit import register_audit_hook

        from .services import bump_club_versions, refuse_closed_night, refuse_small_night_files

        # a closed night is fixed: checked first, so a refused write bumps nothing
        register_audit_hook("closed club night", refuse_closed_night)
        register_audit_hook("club versions", bump_club_versions)
        register_export_check("club night federation files", refuse_small_night_files)
