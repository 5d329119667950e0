"""The demo tournament a new user sees: real TSH files imported through the real importer."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from .interchange import import_tsh
from .models import Club, Membership, Player, Tournament

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"
DEMO_SLUG = "gibson-demo-open"


@transaction.atomic
def load_demo() -> tuple[Tournament, bool]:
    """Load the demo once; a second call finds it and changes nothing."""
    existing = Tournament.objects.filter(slug=DEMO_SLUG).first()
    if existing:
        return existing, False
    tournament = import_tsh(DEMO_DIR / "config.tsh", actor="load_demo")
    tournament.venue = "Riverside Community Hall, Portland"
    tournament.save(update_fields=["venue"])
    data = json.loads((DEMO_DIR / "clubs.json").read_text(encoding="utf-8"))
    clubs = {
        c["slug"]: Club.objects.get_or_create(slug=c["slug"], defaults=c)[0] for c in data["clubs"]
    }
    for name, slug in data["memberships"].items():
        player = Player.objects.filter(name=name).first()
        if player is not None:
            Membership.objects.get_or_create(player=player, club=clubs[slug])
    return tournament, True


def ensure_director(username: str = "director", password: str | None = None) -> tuple[str, str]:
    """A superuser to sign in to the admin with; the password is random unless one is given."""
    password = password or secrets.token_urlsafe(9)
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=username, defaults={"is_staff": True})
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save()
    for t in Tournament.objects.filter(slug=DEMO_SLUG):
        t.directors.add(user)
    return username, password
