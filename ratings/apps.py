from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from tournament.services.audit import register_audit_hook

        from .services import bump_rating_list_versions

        register_audit_hook("rating list versions", bump_rating_list_versions)
