"""A site administrator's grants on one account, from the command line, audited.

``manage_user ANN --may-create-tournaments`` lets Ann create tournaments (typed in or
uploaded); ``--no-create-tournaments`` takes it back. Without a flag it shows what the account
may do. Directing a tournament, keeping score or organising a club never brings these rights.
"""

from django.contrib.auth import get_user_model

from tournament.access import can_create_tournament
from tournament.errors import ServiceError
from tournament.services.staff import grant_create_tournaments, revoke_create_tournaments

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Show or change one account's site-wide rights: --may-create-tournaments grants the "
        "right to create tournaments, --no-create-tournaments takes it back (both audited)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", help="the account's username (any case)")
        grant = parser.add_mutually_exclusive_group()
        grant.add_argument(
            "--may-create-tournaments",
            dest="create",
            action="store_const",
            const=True,
            help="let the account create tournaments from the console",
        )
        grant.add_argument(
            "--no-create-tournaments",
            dest="create",
            action="store_const",
            const=False,
            help="take that right back (the tournaments it made stay its own)",
        )

    def handle(self, *args, **opts):
        User = get_user_model()
        name = (opts["username"] or "").strip()
        user = User.objects.filter(**{f"{User.USERNAME_FIELD}__iexact": name}).first()
        if user is None:
            raise ServiceError("unknown_user", field="username", user=name)
        changed = False
        if opts["create"] is True:
            changed = grant_create_tournaments(user, actor="manage_user")
        elif opts["create"] is False:
            changed = revoke_create_tournaments(user, actor="manage_user")
        user = User.objects.get(pk=user.pk)  # fresh: the permission cache
        data = {
            "username": user.get_username(),
            "active": user.is_active,
            "superuser": user.is_superuser,
            "staff": user.is_staff,
            "may_create_tournaments": can_create_tournament(user),
            "changed": changed,
        }
        if opts["json"]:
            self.emit_json(data)
            return
        may = "may" if data["may_create_tournaments"] else "may not"
        note = "" if changed or opts["create"] is None else " (unchanged)"
        self.stdout.write(f"{data['username']} {may} create tournaments{note}")
