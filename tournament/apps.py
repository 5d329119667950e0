from django.apps import AppConfig


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from .dblocks import set_lock_timeout

        # a write behind another's lock is refused in seconds ("busy, try again"), not a 500
        connection_created.connect(set_lock_timeout, dispatch_uid="lock timeout")

        # Register the Celery app so shared tasks bind to our configuration.
        from . import celery  # noqa: F401
        from .services.audit import bump_tournament_versions, register_audit_hook

        register_audit_hook("tournament versions", bump_tournament_versions)
        from .services.venue import venue_hook

        register_audit_hook("venue mode", venue_hook)

        from .services.notices import on_audited_write

        # a round paired or re-paired: its subscribers' pairing notices, after the commit
        register_audit_hook("pairing notices", on_audited_write)

        from .chances import refresh_on_change

        register_audit_hook("prize chances on a worker", refresh_on_change)

        from .live import announce_on_commit

        # the live stream's processes hear of a write at once through Redis, if there is one
        register_audit_hook("live stream", announce_on_commit)

        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from .services.api_tokens import revoke_on_new_password

        pre_save.connect(revoke_on_new_password, sender=get_user_model(), dispatch_uid="token")

        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from .web.accounts import count_failed_sign_in, release_sign_in, remember_device

        user_login_failed.connect(count_failed_sign_in, dispatch_uid="sign-in per address")
        user_logged_in.connect(release_sign_in, dispatch_uid="sign-in per address: signed in")
        user_logged_in.connect(remember_device, dispatch_uid="sign-in: a known device")
