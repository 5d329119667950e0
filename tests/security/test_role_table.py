"""Who may do what, walked through every face (issue 19: authority in one place).

``TABLE`` below is the manual's "Who may do what" table (docs/reference.md) as data (a test
reads the page and checks the two agree, so neither can drift). Every cell is then tried
through every face that offers the action: the pages (Django's test client), the API (DRF's
client, token or none), the management commands (``--as USERNAME``) and the admin (its change
views). An allowed cell must change what the action changes; a refused one must be refused in
the face's own words (sign-in redirect, 403, 404, 401, a command error) and change nothing.

Each role is a separate account that holds only that role, in a world of two tournaments, a
club and a rating list. Every account is staff (``is_staff``), so the admin's own role checks
are what is tried, not the staff flag: only superusers and named officers (the registry's
keepers, a federation list's officers) get in, whatever the flag says.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.models import PlayerRating, RatedEvent
from ratings.services import create_rating_list
from tournament import services
from tournament.clubs.models import Night
from tournament.clubs.services import add_member, create_club
from tournament.models import (
    Announcement,
    DivisionEntryRule,
    Entry,
    FederationDownload,
    Game,
    NoticeSubscription,
    Player,
    RoundClock,
    StaffInvite,
    Tournament,
    VenueChange,
    VenueLink,
    VenueTake,
    Weekend,
)
from tournament.services import notices
from tournament.services.selfentry import issue_token

from ..core.contact import entered_themselves

ROLE_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"

ROLES = (
    "anonymous",
    "player by token",
    "scorekeeper",
    "director",
    "another director",
    "club organiser",
    "registry keeper",
    "rating officer",
    "superuser",
)

# action -> the roles that may take it, in ROLES' order ("yes"/"no"), as docs/reference.md shows it.
TABLE: dict[str, str] = {
    "view a draft tournament": "no no yes yes no no no no yes",
    "record a result": "no no yes yes no no no no yes",
    "correct a result": "no no yes yes no no no no yes",
    "pair a round": "no no no yes no no no no yes",
    "register players": "no no no yes no no no no yes",
    "change settings": "no no no yes no no no no yes",
    "publish": "no no no yes no no no no yes",
    "change the staff": "no no no yes no no no no yes",
    "run the round clock": "no no no yes no no no no yes",
    "post an announcement": "no no no yes no no no no yes",
    "group events into a weekend": "no no no yes no no no no yes",
    "download federation files": "no no no yes no no no no yes",
    "run entries online": "no no no yes no no no no yes",
    "subscribe players to e-mail notices": "no no no yes no no no no yes",
    "see contact details": "no no no yes no no yes no yes",
    "check players in": "no yes no yes no no no no yes",
    "start a club night": "no no no no no yes no no yes",
    "edit the registry": "no no no no no no yes no yes",
    "submit or import ratings": "no no no no no no no yes yes",
    "create a tournament": "no no no no no no no no yes",
    "make a venue link": "no no no yes no no no no yes",
    "take a tournament back from its venue": "no no no yes no no no no yes",
    "take a tournament to a venue": "no no no no no no no no yes",
    "push to the hosted site": "no no no yes no no no no yes",
    "hand back to the hosted site": "no no no yes no no no no yes",
    "move a venue link to another laptop": "no no no yes no no no no yes",
    "choose between the laptop's and the hosted copy's state": "no no no yes no no no no yes",
    "found a club": "no no yes yes yes yes yes yes yes",
    "use the admin": "no no no no no no yes yes yes",
}

SLUG = "role-open"


# ------------------------------------------------------------------------------ the world


@dataclass
class World:
    tournament: Tournament
    users: dict[str, Any]  # role -> account (None for the two roles without one)
    token: str  # the self-entry link of player #1 of division A
    club: Any
    rating_list: Any
    tmp: Path

    def user(self, role: str) -> Any:
        return self.users[role]


@pytest.fixture
def world(db, tmp_path) -> World:
    """A draft tournament with two divisions: A has round 1 scored and round 2 paired, B has
    players and no pairings yet; another tournament; a club with members; a rating list."""
    t = services.create_tournament(
        name="Role Open", slug=SLUG, published=False, start_date=datetime.date(2025, 5, 3)
    )
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for n in range(1, 5):
        services.register_player(a, name=f"Able {n}", rating=1800 - 10 * n)
        services.register_player(b, name=f"Baker {n}", rating=1700 - 10 * n)
    save_round_pairings(a, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    services.record_result(a, 1, 1, 400, 300)
    services.record_result(a, 1, 3, 380, 390)
    save_round_pairings(a, 2, [PlannedGame(1, 3, board=1), PlannedGame(2, 4, board=2)])
    token = issue_token(a.entries.get(number=1))
    # Baker 3 entered online themselves, from the address the registry holds, and asked for
    # notices: their contact details are this tournament's directors' to see (no one else's);
    # Baker 4 was entered by hand and has an address too, which nobody but the registry sees
    for n in (3, 4):
        Player.objects.filter(name=f"Baker {n}").update(
            email=f"baker{n}@players.test", phone=f"+44 20 7946 000{n}"
        )
    entered_themselves(b.entries.get(number=3))
    for n in (3, 4):
        baker = Player.objects.get(name=f"Baker {n}")
        notices.subscribe(t, baker, baker.email, actor="test")
    other = services.create_tournament(name="Other Open", slug="other-open")

    model = get_user_model()

    def account(name: str, **extra: Any) -> Any:
        # no password: the faces sign in with force_login or a token (and hashing is slow)
        return model.objects.create_user(name, f"{name}@example.org", None, **extra)

    users: dict[str, Any] = {"anonymous": None, "player by token": None}
    users["scorekeeper"] = account("keeper", is_staff=True)
    t.scorekeepers.add(users["scorekeeper"])
    users["director"] = account("director", is_staff=True)
    t.directors.add(users["director"])
    users["another director"] = account("stranger", is_staff=True)
    other.directors.add(users["another director"])
    users["club organiser"] = account("organiser", is_staff=True)
    club = create_club(actor=users["club organiser"], name="Riverside", slug="riverside")
    for name in ("Cole, Cy", "Dunn, Di"):
        add_member(club, name, actor="test")
    users["registry keeper"] = account("registrar", is_staff=True)
    users["registry keeper"].user_permissions.add(
        Permission.objects.get(codename="manage_registry")
    )
    users["rating officer"] = account("officer", is_staff=True)
    rating_list = create_rating_list("Role List", slug="role-list")
    rating_list.officers.add(users["rating officer"])
    users["superuser"] = model.objects.create_superuser("root", "root@example.org", None)
    return World(t, users, token, club, rating_list, tmp_path)


# ------------------------------------------------------------------------------ the faces


def web_client(world: World, role: str) -> Client:
    """Signed in as the role's account; the player has opened their own link first."""
    client = Client()
    user = world.user(role)
    if user is not None:
        client.force_login(user)
    elif role == "player by token":
        assert client.get(f"/e/{world.token}/").status_code == 200
    return client


def api_client(world: World, role: str) -> APIClient:
    """With the account's API token (a player has none: their link is not an API key)."""
    client = APIClient()
    user = world.user(role)
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def web_refused(response: Any) -> bool:
    """Anonymous visitors are sent to sign in; a signed-in account without the role gets 403
    (a draft it may not see is 404)."""
    if response.status_code == 302:
        return "/login/" in response["Location"]  # the site's sign-in, or the admin's
    return response.status_code in (403, 404)


def api_refused(response: Any) -> bool:
    return response.status_code in (401, 403, 404)


def command(world: World, role: str, name: str, *args: str) -> bool:
    """Run the command ``--as`` the role's account: True if it ran, False if refused."""
    try:
        call_command(name, *args, as_user=world.user(role).username, stdout=StringIO())
    except CommandError as exc:
        assert getattr(exc, "code", "") in REFUSALS, f"{name}: {exc}"
        return False
    return True


# the codes a command's refusal of an account carries (the services' role checks)
REFUSALS = {"not_allowed", "organiser_required", "rating_officer_required", "not_a_director"}


def admin_may_change(world: World, role: str, url: str) -> bool:
    """Whether the admin's change view offers the object for change to this account."""
    response = web_client(world, role).get(url)
    if response.status_code != 200:
        # an object outside the account's own is "not found": back to the admin's index
        hidden = response.status_code == 302 and response["Location"] == "/admin/"
        assert hidden or web_refused(response), (url, response.status_code)
        return False
    return bool(response.context_data.get("has_change_permission"))


# ------------------------------------------------------------------------------ the actions

# Each action: what it changes (a fingerprint read from the database) and its doors, each a
# function (world, role) -> the face's answer: True for done, False for refused. A door that
# answers True must have changed the fingerprint; a door that answers False must not.


def _division(world: World, name: str) -> Any:
    return world.tournament.divisions.get(name=name)


def _game(world: World, round_number: int, number: int) -> Game:
    d = _division(world, "A")
    return Game.objects.get(round__division=d, round__number=round_number, player1__number=number)


def _record_fp(world: World) -> Any:
    g = _game(world, 2, 1)
    return (g.score1, g.score2)


def _correct_fp(world: World) -> Any:
    g = _game(world, 1, 1)
    return (g.score1, g.score2)


def _pair_fp(world: World) -> Any:
    return Game.objects.filter(round__division=_division(world, "B")).count()


def _register_fp(world: World) -> Any:
    return _division(world, "B").entries.count()


def _settings_fp(world: World) -> Any:
    return Tournament.objects.get(pk=world.tournament.pk).venue


def _publish_fp(world: World) -> Any:
    return Tournament.objects.get(pk=world.tournament.pk).published


def _staff_fp(world: World) -> Any:
    return StaffInvite.objects.count()


def _clock_fp(world: World) -> Any:
    return RoundClock.objects.filter(started_at__isnull=False).count()


def _announcement_fp(world: World) -> Any:
    return Announcement.objects.count()


def _weekend_fp(world: World) -> Any:
    return list(Weekend.objects.values_list("slug", flat=True))


def _federation_fp(world: World) -> Any:
    return FederationDownload.objects.count()


def _subscription_fp(world: World) -> Any:
    return NoticeSubscription.objects.count()


def _web_add_subscriber(world: World, role: str) -> bool:
    """The console's Notices page subscribes an entrant at the address the registry holds."""
    player = _division(world, "B").entries.get(number=2).player
    Player.objects.filter(pk=player.pk).update(email="baker2@example.org")
    response = web_client(world, role).post(CONSOLE + "notices/add/", {"player": player.pk})
    return not web_refused(response)


def _shows_contact(text: str, n: int) -> bool:
    return f"baker{n}@players.test" in text or f"7946 000{n}" in text


def _web_contact(world: World, role: str) -> bool:
    """Seen on any page the account opens: the console's Notices page (the subscribers and
    whom to add) or the admin's page of the player (the registry's own). Baker 4, entered by
    hand, shows to nobody but the registry's keepers and superusers."""
    client = web_client(world, role)
    seen = {}
    for n in (3, 4):
        player = Player.objects.get(name=f"Baker {n}")
        pages = (CONSOLE + "notices/", f"/admin/tournament/player/{player.pk}/change/")
        seen[n] = any(_shows_contact(client.get(url).content.decode(), n) for url in pages)
    officer = role in ("registry keeper", "superuser")
    assert seen[4] == officer, (role, "saw Baker 4's contact details" if seen[4] else "")
    return seen[3]


def _command_contact(world: World, role: str) -> bool:
    """``notices SLUG --json --as USERNAME`` lists the subscribers, each address only where
    the account may see it (null otherwise)."""
    out = StringIO()
    call_command("notices", SLUG, "--json", as_user=world.user(role).username, stdout=out)
    text = out.getvalue()
    assert _shows_contact(text, 4) == (role in ("registry keeper", "superuser")), role
    return _shows_contact(text, 3)


def _entry_rule_fp(world: World) -> Any:
    return DivisionEntryRule.objects.count()


def _check_in_fp(world: World) -> Any:
    return Entry.objects.filter(checked_in_at__isnull=False).count()


def _web_check_in(world: World, role: str) -> bool:
    """A player checks in from their own link; everyone else tries the console's list."""
    client = web_client(world, role)
    if role == "player by token":
        response = client.post(f"/e/{world.token}/check-in/")
        return response.status_code == 302
    entry = _division(world, "B").entries.get(number=1)
    response = client.post(CONSOLE + "setup/checkin/tap/", {"entry": entry.pk, "here": "1"})
    return not web_refused(response)


# venue mode (issue 23): the hosted site's two actions (make a link, take it back), and the
# laptop's three (take, push, hand back), whose hosted site is a stand-in answering yes


def _venue_links_fp(world: World) -> Any:
    return VenueLink.objects.count()


def _web_reclaim(world: World, role: str) -> bool:
    """Taking back needs a link to take back from: made first, as the hosted director would."""
    from tournament.services.venue import create_link

    create_link("test", world.tournament, "Hall B")
    response = web_client(world, role).post(CONSOLE + "venue-mode/", {"action": "reclaim"})
    return not web_refused(response)


def _venue_takes_fp(world: World) -> Any:
    """Pushes and hand-backs made (the door itself makes the laptop's link first)."""
    takes = VenueTake.objects
    return (
        takes.filter(last_push__isnull=False).count(),
        takes.filter(released__isnull=False).count(),
    )


class _HostedStandIn:
    """The hosted site, as the laptop's HTTP client sees it: every call answered yes."""

    def __init__(self, world: World) -> None:
        from tournament.services.venue import tournament_state

        state = tournament_state(world.tournament)
        state["tournament"] = "taken-open"
        self.state = state

    def __enter__(self) -> _HostedStandIn:
        from unittest import mock

        from tournament.sync import client

        answers = {
            "fetch_state": lambda base, token: self.state,
            "push_batch": lambda base, token, batch: {
                "last_seq_applied": batch["upto"],
                "players": {},
                "was": batch["after"],
            },
            "fetch_inbox": lambda base, token: {"items": []},
            "release": lambda base, token: {"released": True},
        }
        self.patches = [mock.patch.object(client, k, v) for k, v in answers.items()]
        for patch in self.patches:
            patch.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        for patch in self.patches:
            patch.stop()


def _web_venue_take(world: World, role: str) -> bool:
    with _HostedStandIn(world):
        response = web_client(world, role).post(
            "/console/venue/take/", {"url": "http://hosted.example", "token": "gv_x"}
        )
    return not web_refused(response)


def _audited(action: str) -> Callable[[World], Any]:
    def fingerprint(world: World) -> Any:
        from tournament.models import AuditEvent

        return AuditEvent.objects.filter(action=action).count()

    return fingerprint


def _web_move_link(world: World, role: str) -> bool:
    """Moving needs a link a laptop holds: made and taken first."""
    from tournament.services.venue import create_link

    link, _token = create_link("test", world.tournament, "Hall B")
    VenueLink.objects.filter(pk=link.pk).update(laptop_id="a" * 32, laptop_name="Laptop A")
    response = web_client(world, role).post(CONSOLE + "venue-mode/", {"action": "move"})
    return not web_refused(response)


def _web_resolve(world: World, role: str) -> bool:
    """Choosing needs a laptop whose hosted copy holds changes it never had."""
    VenueTake.objects.create(
        tournament=world.tournament,
        hosted_url="http://hosted.example",
        token="gv_x",
        diverged={"hosted_seq": 9, "hosted_only": ["round 9"], "venue_only": []},
    )
    with _HostedStandIn(world):
        response = web_client(world, role).post(CONSOLE + "venue-mode/", {"action": "keep_venue"})
    return not web_refused(response)


def _web_on_the_laptop(action: str) -> Callable[[World, str], bool]:
    """The world's tournament as if taken onto this laptop, one change waiting; then the
    venue mode page's button."""

    def door(world: World, role: str) -> bool:
        VenueTake.objects.create(
            tournament=world.tournament,
            hosted_url="http://hosted.example",
            token="gv_x",
            next_seq=2,
        )
        VenueChange.objects.create(
            tournament=world.tournament, seq=1, kind="record_result", scope="tournament"
        )
        with _HostedStandIn(world):
            response = web_client(world, role).post(CONSOLE + "venue-mode/", {"action": action})
        return not web_refused(response)

    return door


def _night_fp(world: World) -> Any:
    return Night.objects.count()


def _ratings_fp(world: World) -> Any:
    return (RatedEvent.objects.count(), PlayerRating.objects.count())


def _nothing(world: World) -> Any:
    return None


CONSOLE = f"/t/{SLUG}/console/"
API = f"/api/v1/tournaments/{SLUG}/"


def _web_view(world: World, role: str) -> bool:
    response = web_client(world, role).get(f"/t/{SLUG}/")
    assert response.status_code in (200, 404), response.status_code  # a draft is not found
    return response.status_code == 200


def _api_view(world: World, role: str) -> bool:
    response = api_client(world, role).get(API)
    assert response.status_code in (200, 404), response.status_code
    return response.status_code == 200


def _web_post(url: str, data: dict[str, Any]) -> Callable[[World, str], bool]:
    def door(world: World, role: str) -> bool:
        response = web_client(world, role).post(url, data)
        return not web_refused(response)

    return door


def _api_post(url: str, data: dict[str, Any]) -> Callable[[World, str], bool]:
    def door(world: World, role: str) -> bool:
        response = api_client(world, role).post(url, data, format="json")
        return not api_refused(response)

    return door


def _web_correct(world: World, role: str) -> bool:
    g = _game(world, 1, 1)
    data = {"game": g.pk, "score1": 410, "score2": 300, "reason": "misread the card"}
    response = web_client(world, role).post(CONSOLE + "a/round/1/results/correct/", data)
    return not web_refused(response)


def _web_night(world: World, role: str) -> bool:
    ids = [str(p.pk) for p in world.club.players.all()]
    data = {"players": ids, "guests": "", "games": "1", "draw": ["random"], "date": "2025-06-02"}
    response = web_client(world, role).post(f"/clubs/{world.club.slug}/nights/new/", data)
    return not web_refused(response)


def _admin_settings(world: World, role: str) -> bool:
    url = f"/admin/tournament/tournament/{world.tournament.pk}/change/"
    return admin_may_change(world, role, url)


def _web_new_tournament(world: World, role: str) -> bool:
    """The console's New tournament page: the creation right, not any local role."""
    return not web_refused(web_client(world, role).get("/console/new/"))


CLUB = {
    "name": "Hilltop Scrabble",
    "city": "",
    "country": "",
    "meets": "",
    "realm": "nsa",
    "newcomer_rating": "1000",
    "rating_system": "club-third",
}


def _clubs(world: World) -> Any:
    from tournament.clubs.models import Club

    return sorted(Club.objects.values_list("name", flat=True))


def _admin_index(world: World, role: str) -> bool:
    """The admin's index: its own sign-in (or 403) for everyone it is not for."""
    response = web_client(world, role).get("/admin/")
    if response.status_code == 200:
        return True
    assert web_refused(response), response.status_code
    return False


def _admin_registry(world: World, role: str) -> bool:
    player = Player.objects.get(name="Able 1")
    return admin_may_change(world, role, f"/admin/tournament/player/{player.pk}/change/")


def _command(name: str, *args: str) -> Callable[[World, str], bool]:
    return lambda world, role: command(world, role, name, *args)


def _import_ratings(world: World, role: str) -> bool:
    path = world.tmp / "ratings.txt"
    path.write_text("Able 1\t1750\t40\nNew, Nell\t1500\t20\n", encoding="utf-8")
    return command(world, role, "import_ratings", "role-list", str(path))


SETTINGS = {
    "name": "Role Open",
    "start_date": "2025-05-03",
    "end_date": "",
    "venue": "Hall Nine",
    "realm": "nsa",
    "bye_spread": "50",
    "forfeit_spread": "-50",
    "spread_cap": "",
    "max_rounds": "",
    "gibson": "on",
    "gibson_spread": "250",
    "late_entry": "none",
    "paper": "letter",
}


@dataclass(frozen=True)
class Action:
    fingerprint: Callable[[World], Any]
    doors: dict[str, Callable[[World, str], bool]]  # face -> door


ACTIONS: dict[str, Action] = {
    "view a draft tournament": Action(_nothing, {"web": _web_view, "api": _api_view}),
    "record a result": Action(
        _record_fp,
        {
            "web": _web_post(CONSOLE + "a/round/2/results/", {"line": "1 400 300"}),
            "api": _api_post(
                API + "divisions/a/results/",
                {"round": 2, "player": 1, "score": 400, "opp_score": 300},
            ),
            "command": _command(
                "record_result", SLUG, "--division", "A", "--round", "2", "1", "400", "300"
            ),
        },
    ),
    "correct a result": Action(
        _correct_fp,
        {
            "web": _web_correct,
            "api": _api_post(
                API + "divisions/a/corrections/",
                {"round": 1, "player": 1, "score": 410, "opp_score": 300, "reason": "typo"},
            ),
            "command": _command(
                "record_result",
                SLUG,
                "--division",
                "A",
                "--round",
                "1",
                "1",
                "410",
                "300",
                "--correct",
                "typo",
            ),
        },
    ),
    "pair a round": Action(
        _pair_fp,
        {
            "web": _web_post(
                CONSOLE + "b/round/1/pair/",
                {
                    "action": "publish",
                    "publish-games": "1-2 3-4",
                    "publish-pins": "",
                    "publish-system": "koth",
                },
            ),
            "api": _api_post(API + "divisions/b/rounds/1/pair/", {"system": "koth"}),
            "command": _command(
                "pair", SLUG, "--division", "B", "--round", "1", "--system", "koth"
            ),
        },
    ),
    "register players": Action(
        _register_fp,
        {
            "web": _web_post(
                CONSOLE + "b/players/add/", {"name": "Eads, Ed", "rating": "1400", "new": "on"}
            ),
            "api": _api_post(API + "divisions/b/entries/", {"name": "Eads, Ed", "rating": 1400}),
        },
    ),
    "change settings": Action(
        _settings_fp,
        {"web": _web_post(CONSOLE + "setup/", SETTINGS)},
    ),
    "publish": Action(
        _publish_fp, {"web": _web_post(CONSOLE + "setup/publish/", {"published": "1"})}
    ),
    "change the staff": Action(
        _staff_fp,
        {
            "web": _web_post(
                CONSOLE + "staff/invite/",
                {"invite-role": "scorekeeper", "invite-email": "new@example.org"},
            )
        },
    ),
    "run the round clock": Action(
        _clock_fp,
        {
            "web": _web_post(CONSOLE + "a/round/2/clock/", {"action": "start"}),
            "api": _api_post(API + "divisions/a/rounds/2/clock/", {"action": "start"}),
            "command": _command("clock", SLUG, "start", "--division", "A", "--round", "2"),
        },
    ),
    "post an announcement": Action(
        _announcement_fp,
        {"web": _web_post(CONSOLE + "setup/announcement/", {"text": "Round 3 at 15:00"})},
    ),
    "group events into a weekend": Action(
        _weekend_fp,
        {"web": _web_post(CONSOLE + "weekend/create/", {"name": "Role Weekend", "slug": "rw"})},
    ),
    "download federation files": Action(
        _federation_fp,
        {"web": _web_post(CONSOLE + "federation/absp/download/", {"anyway": "on"})},
    ),
    "run entries online": Action(
        _entry_rule_fp,
        {"web": _web_post(CONSOLE + "setup/entries/rule/b/", {"b-cap": "12"})},
    ),
    "subscribe players to e-mail notices": Action(
        _subscription_fp,
        {"web": _web_add_subscriber},
    ),
    "see contact details": Action(_nothing, {"web": _web_contact, "command": _command_contact}),
    "check players in": Action(
        _check_in_fp,
        {
            "web": _web_check_in,
            "command": _command("entries", SLUG, "check-in", "1", "--division", "B"),
        },
    ),
    "start a club night": Action(
        _night_fp,
        {
            "web": _web_night,
            "command": _command(
                "club_night",
                "riverside",
                "--date",
                "2025-06-02",
                "--players",
                "Cole, Cy; Dunn, Di",
                "--games",
                "1",
            ),
        },
    ),
    "edit the registry": Action(_nothing, {"admin": _admin_registry}),
    "create a tournament": Action(_nothing, {"web": _web_new_tournament}),
    "make a venue link": Action(
        _venue_links_fp,
        {"web": _web_post(CONSOLE + "venue-mode/", {"action": "link", "venue_name": "Hall B"})},
    ),
    "take a tournament back from its venue": Action(
        lambda world: VenueLink.objects.filter(revoked__isnull=False).count(),
        {"web": _web_reclaim},
    ),
    "take a tournament to a venue": Action(
        lambda world: VenueTake.objects.count(), {"web": _web_venue_take}
    ),
    "push to the hosted site": Action(_venue_takes_fp, {"web": _web_on_the_laptop("push")}),
    "hand back to the hosted site": Action(_venue_takes_fp, {"web": _web_on_the_laptop("release")}),
    "move a venue link to another laptop": Action(
        _audited("move_venue_link"), {"web": _web_move_link}
    ),
    "choose between the laptop's and the hosted copy's state": Action(
        _audited("venue_resolve"), {"web": _web_resolve}
    ),
    "found a club": Action(_clubs, {"web": _web_post("/clubs/new/", CLUB)}),
    "use the admin": Action(_nothing, {"admin": _admin_index}),
    "submit or import ratings": Action(
        _ratings_fp,
        {
            "command": _command("submit_ratings", SLUG, "--list", "role-list", "--division", "A"),
            "command (import)": _import_ratings,
        },
    ),
}

# the faces that have no door for a role: a command is run by an account (--as), never by a
# visitor; the admin is for accounts too
NO_DOOR = {("command", "anonymous"), ("command", "player by token")}

FACES = [(action, face) for action, spec in ACTIONS.items() for face in spec.doors]


def expected(action: str, role: str) -> bool:
    return TABLE[action].split()[ROLES.index(role)] == "yes"


def roles_with_a_door(face: str) -> list[str]:
    return [role for role in ROLES if (face.split(" ")[0], role) not in NO_DOOR]


@pytest.mark.parametrize(("action", "face"), FACES)
def test_the_role_table_holds_through_every_face(world, action, face):
    """Each role in turn tries the action through the face, on the same world: every try is
    rolled back (a savepoint), so the next role meets what the first one met."""
    spec = ACTIONS[action]
    wrong = []
    for role in roles_with_a_door(face):
        with transaction.atomic():
            before = spec.fingerprint(world)
            done = spec.doors[face](world, role)
            after = spec.fingerprint(world)
            transaction.set_rollback(True)
        want = expected(action, role)
        if done != want:
            wrong.append(f"{role}: {'allowed' if done else 'refused'}")
        elif face != "admin" and spec.fingerprint is not _nothing and (after != before) != want:
            # (an admin door asks its change view, which writes nothing)
            change = "changed" if after != before else "left unchanged"
            wrong.append(f"{role}: {'allowed' if done else 'refused'} but {change} {before!r}")
    assert wrong == [], f"{action} through {face}: {wrong}"


# --------------------------------------------------------------------- the manual's table


def manual_table() -> dict[str, str]:
    """The manual's "Who may do what" table: action -> "yes no ..." in ROLES' order."""
    text = ROLE_PAGE.read_text(encoding="utf-8")
    section = text.split("## Who may do what", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert tuple(header[1:]) == ROLES, header
    table = {}
    for line in rows[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        marks = ["yes" if re.fullmatch(r"yes\b.*", c) else "no" for c in cells[1:]]
        table[cells[0]] = " ".join(marks)
    return table


def test_the_manual_table_is_the_tested_table():
    assert manual_table() == TABLE


def test_every_action_is_tried_through_a_face_for_every_role():
    """Every cell is tried somewhere, but for the visitors' cells of an action only commands
    offer (a command is run by an account, never by a visitor)."""
    tried = {(a, role) for a, face in FACES for role in roles_with_a_door(face)}
    only_commands = {
        (a, role)
        for a, spec in ACTIONS.items()
        if all(face.startswith("command") for face in spec.doors)
        for role in ROLES
        if ("command", role) in NO_DOOR
    }
    assert only_commands == {
        ("submit or import ratings", "anonymous"),
        ("submit or import ratings", "player by token"),
    }
    assert tried == {(action, role) for action in TABLE for role in ROLES} - only_commands
    assert set(ACTIONS) == set(TABLE)


def test_a_command_as_an_unknown_account_is_refused_by_name(world):
    with pytest.raises(CommandError, match="no active account 'nobody'"):
        call_command(
            "record_result",
            SLUG,
            "--division",
            "A",
            "--round",
            "2",
            "1",
            "400",
            "300",
            as_user="nobody",
            stdout=StringIO(),
        )
    assert _record_fp(world) == (None, None)


def test_a_service_refuses_a_user_without_the_role_by_name(world):
    """The faces check first; the service checks again, naming who, what and where (a draft
    the account may not see is "this tournament": its name is its staff's)."""
    from tournament.errors import ServiceError

    division = _division(world, "A")
    with pytest.raises(ServiceError) as refused:
        services.record_result(division, 2, 1, 400, 300, actor=world.user("another director"))
    assert refused.value.code == "not_allowed"
    assert refused.value.message == (
        "stranger may not record results in this tournament: "
        "only its directors and scorekeepers may"
    )
    assert _record_fp(world) == (None, None)
    services.record_result(division, 2, 1, 400, 300, actor=world.user("scorekeeper"))
    assert _record_fp(world) == (400, 300)


def test_a_command_as_an_account_without_the_role_is_refused_by_name(world):
    out = StringIO()
    with pytest.raises(CommandError) as refused:
        call_command(
            "pair",
            SLUG,
            "--division",
            "B",
            "--round",
            "1",
            "--system",
            "koth",
            as_user="keeper",
            stdout=out,
        )
    assert refused.value.code == "not_allowed"
    assert "keeper may not pair rounds in Role Open" in str(refused.value)
    assert _pair_fp(world) == 0
