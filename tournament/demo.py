"""The demo tournament a new user sees: real TSH files imported through the real importer."""

from __future__ import annotations

import json
import random
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from tournament.interchange.imports import import_tsh

from .models import Club, Player, Tournament
from .services.staff import add_staff, grant_create_tournaments

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"
DEMO_SLUG = "gibson-demo-open"


DEMO_CLUB = "riverside"
DEMO_SEASON = "Autumn 2026"
DEMO_NIGHTS = ("2026-09-01", "2026-09-08", "2026-09-15")


@transaction.atomic
def load_demo() -> tuple[Tournament, bool]:
    """Load the demo once; a second call finds it and changes nothing."""
    existing = Tournament.objects.filter(slug=DEMO_SLUG).first()
    if existing:
        return existing, False
    tournament = import_tsh(DEMO_DIR / "config.tsh", actor="load_demo")
    tournament.venue = "Riverside Community Hall, Portland"
    tournament.save(update_fields=["venue"])
    load_demo_clubs()
    return tournament, True


def load_demo_clubs() -> None:
    """The demo's two clubs through the club services, and three closed club nights of the
    Riverside club (random draw, then King of the Hill) in a season, so the club page, the
    ladder and the club ratings have something to show. Scores come from a fixed seed."""
    from .clubs import services as clubs
    from .services.results import record_result

    data = json.loads((DEMO_DIR / "clubs.json").read_text(encoding="utf-8"))
    found = {}
    for c in data["clubs"]:
        found[c["slug"]] = clubs.create_club(
            name=c["name"],
            slug=c["slug"],
            city=c.get("city", ""),
            country=c.get("country", ""),
            meets=c.get("meets", ""),
            actor="load_demo",
        )
    members: dict[str, list[Player]] = {slug: [] for slug in found}
    for name, slug in data["memberships"].items():
        player = Player.objects.filter(name=name).first()
        if player is not None:
            clubs.add_member(found[slug], player, actor="load_demo", since="2025-01-07")
            members[slug].append(player)
    club = found[DEMO_CLUB]
    clubs.create_season(
        club,
        name=DEMO_SEASON,
        start_date="2026-09-01",
        end_date="2026-12-22",
        preset="margin-bonus",
        actor="load_demo",
    )
    rng = random.Random(2026)
    for i, day in enumerate(DEMO_NIGHTS):
        present = [p for p in members[DEMO_CLUB] if rng.random() < 0.85]
        night = clubs.create_night(
            club,
            date=day,
            players=present,
            guests=["Visitor, Val"] if i == 1 else [],
            games=3,
            draw="random,koth",
            actor="load_demo",
        )
        division = night.tournament.divisions.get()
        for _ in range(3):
            number = clubs.pair_next_game(night, actor="load_demo")
            for game in division.round_set.get(number=number).games.select_related("player1"):
                if game.player2_id is None:
                    record_result(division, number, game.player1.number, 50, actor="load_demo")
                else:
                    record_result(
                        division,
                        number,
                        game.player1.number,
                        rng.randint(300, 520),
                        rng.randint(300, 520),
                        actor="load_demo",
                    )
        clubs.close_night(night, actor="load_demo")


def ensure_director(
    username: str = "director", password: str | None = None, *, new_password: bool = False
) -> tuple[str, str | None]:
    """The demo's director, and the password to print (None: unchanged).

    It directs the demo, organises the demo clubs and may create tournaments (the
    ``tournament.create_tournament`` grant), and is nothing more: not a superuser, not staff,
    so the demo shows what a real director's account can do (a superuser for the admin is
    made with ``createsuperuser``). An account of that name made superuser by an older
    version is brought down to the same rights.

    A restart keeps an existing director's password: setting it again (even to the same
    words) changes the stored hash and signs the director out of every browser mid-event. A
    password is set when the director is new, when one is given that differs from the stored
    one, or when ``new_password`` asks for a fresh random one."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username)
    user.is_staff = user.is_superuser = False
    shown: str | None = None
    if created or new_password or not user.has_usable_password():
        shown = password or secrets.token_urlsafe(9)
    elif password and not user.check_password(password):
        shown = password
    if shown is not None:
        user.set_password(shown)
    elif password:
        shown = password  # given and already the stored one: print it, change nothing
    user.save()

    grant_create_tournaments(user, actor="load_demo")
    for t in Tournament.objects.filter(slug=DEMO_SLUG).exclude(directors=user):
        add_staff(t, role="director", user=user, actor="load_demo")
    from .clubs.services import add_organiser

    for club in Club.objects.filter(slug__in=["riverside", "harbour"]).exclude(organisers=user):
        add_organiser(club, user, actor="load_demo")
    return username, shown
