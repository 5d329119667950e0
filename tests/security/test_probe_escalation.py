"""Issue 19, the escalation probe replayed end to end: a local role never becomes site-wide
power.

The finding (probed on main): a tournament's scorekeeper founds a club, starts a night, and on
that night's console Staff page creates a director account; the new account had ``is_staff``
(the admin) and ``/console/new/`` (tournament creation and uploads), and staff changes made
through the admin left no audit event. Now: the night's Staff page adds scorekeepers only,
no account made anywhere on the site gets the staff flag, creating tournaments needs the
``tournament.create_tournament`` grant, and every staff change (console, admin, invites,
grants) writes an audit event. Each denial is checked, across tournaments and clubs too.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.admin.conftest import admin_form
from tests.core.conftest import name_admin_officer
from tournament import services
from tournament.clubs.models import Night
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Club, StaffInvite, Tournament
from tournament.services.staff import grant_create_tournaments, revoke_create_tournaments

pytestmark = pytest.mark.django_db
User = get_user_model()
PASSWORD = "pw-long-enough-1"


@pytest.fixture(autouse=True)
def fast_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def staff_form(role: str, username: str) -> dict[str, str]:
    data = {
        "role": role,
        "username": username,
        "email": f"{username}@example.org",
        "password": "a-long-passphrase-9",
        "password_again": "a-long-passphrase-9",
    }
    return {f"account-{k}": v for k, v in data.items()}


def club_form(name: str) -> dict[str, str]:
    return {"name": name, "realm": "nsa", "newcomer_rating": "1000", "rating_system": "club-third"}


def rows() -> tuple[int, ...]:
    return (
        User.objects.count(),
        User.objects.filter(is_staff=True).count(),
        AuditEvent.objects.count(),
        StaffInvite.objects.count(),
        Tournament.objects.count(),
    )


def no_site_wide_power(client: Client, user) -> None:
    """No staff flag, no creation right, no /console/new/ or upload, no admin page."""
    user.refresh_from_db()
    assert not user.is_staff and not user.is_superuser
    assert not user.has_perm("tournament.create_tournament")
    client.force_login(user)
    before = rows()
    assert client.get("/console/new/").status_code == 403
    assert client.post("/console/new/", {"name": "Sneaky Open"}).status_code == 403
    assert client.post("/console/new/upload/", {}).status_code == 403
    assert "new-tournament" not in client.get("/console/").content.decode()
    for url in ("/admin/", "/admin/auth/user/", "/admin/tournament/tournament/"):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
    assert rows() == before


@pytest.fixture
def event():
    return services.create_tournament(name="Spring Open", actor="test")


@pytest.fixture
def scorer(event):
    """The probe's starting point: a scorekeeper of one tournament, nothing else."""
    user = User.objects.create_user("scorer", "scorer@example.org", PASSWORD)
    services.add_staff(event, role="scorekeeper", user=user, actor="test")
    return user


def found_club_and_start_night(client: Client, name: str) -> tuple[Club, Tournament]:
    response = client.post("/clubs/new/", club_form(name))
    assert response.status_code == 302, response.content.decode()[-1500:]
    club = Club.objects.get(name=name)
    response = client.post(
        f"/clubs/{club.slug}/nights/new/",
        {"date": "2026-09-01", "games": "3", "guests": "Guest, Gail\nGuest, Gus"},
    )
    assert response.status_code == 302, response.content.decode()[-1500:]
    night = Night.objects.get(club=club)
    return club, night.tournament


def test_the_probe_replayed(client, event, scorer):
    client.force_login(scorer)
    no_site_wide_power(client, scorer)
    client.force_login(scorer)
    club, night = found_club_and_start_night(client, "Probe Club")
    assert night.is_director(scorer)  # organisers direct their club's nights ...
    no_site_wide_power(client, scorer)  # ... and that is all they direct
    client.force_login(scorer)
    staff = reverse("console:staff", args=[night.slug])
    page = client.get(staff).content.decode()
    assert 'value="scorekeeper"' in page and 'value="director"' not in page.split("Make an")[1]

    # the night's Staff page makes no director account, nor a director's invite
    before = rows()
    refused = client.post(staff, staff_form("director", "shadow-td"))
    assert refused.status_code == 400
    assert "organisers" in refused.content.decode()
    invite = client.post(
        reverse("console:staff_invite", args=[night.slug]),
        {"invite-role": "director", "invite-email": "x@example.org"},
    )
    assert invite.status_code == 400
    assert rows() == before and not User.objects.filter(username="shadow-td").exists()

    # a scorekeeper account is all it makes, audited, with nothing site-wide
    assert client.post(staff, staff_form("scorekeeper", "helper")).status_code == 302
    helper = User.objects.get(username="helper")
    assert night.is_scorekeeper(helper) and not night.is_director(helper)
    [added] = AuditEvent.objects.filter(action="add_staff", tournament=night)
    assert added.user == scorer
    assert added.after == {"user": "helper", "role": "scorekeeper", "new_account": True}
    no_site_wide_power(Client(), helper)
    # the helper cannot reach the night's Staff page, nor the club's pages
    helper_client = Client()
    helper_client.force_login(helper)
    assert helper_client.get(staff).status_code == 403
    assert helper_client.get(f"/clubs/{club.slug}/manage/").status_code == 403
    assert User.objects.filter(is_staff=True).count() == 0


def test_an_existing_account_is_not_made_a_nights_director(client, event, scorer):
    client.force_login(scorer)
    _, night = found_club_and_start_night(client, "Probe Club")
    other = User.objects.create_user("other", "o@example.org", PASSWORD)
    before = rows()
    with pytest.raises(ServiceError) as refused:
        services.add_staff(night, role="director", user=other, actor=scorer)
    assert refused.value.code == "staff_night_director"
    assert rows() == before and not night.is_director(other)


def test_a_director_invite_made_before_a_night_existed_is_refused_on_a_night(client, event, scorer):
    """An invite row pointing at a night (made by hand or by an older version) still only
    gives scorekeeping: accepting a director's invite there is refused."""
    client.force_login(scorer)
    _, night = found_club_and_start_night(client, "Probe Club")
    from tournament.services.staff import token_hash

    StaffInvite.objects.create(
        tournament=night,
        role="director",
        token_hash=token_hash("old-token-123"),
        expires="2099-01-01T00:00:00Z",
    )
    before = rows()
    with pytest.raises(ServiceError) as refused:
        services.accept_invite("old-token-123", username="late", password="a-long-passphrase-9")
    assert refused.value.code == "staff_night_director"
    assert rows() == before


def test_across_clubs_and_tournaments(client, event, scorer):
    client.force_login(scorer)
    _, mine = found_club_and_start_night(client, "Probe Club")
    rival = User.objects.create_user("rival", "r@example.org", PASSWORD)
    rival_client = Client()
    rival_client.force_login(rival)
    rival_club, theirs = found_club_and_start_night(rival_client, "Rival Club")
    before = rows()
    # another club's night, another club's pages, and the tournament one only keeps score for
    for slug in (theirs.slug, event.slug):
        assert client.get(reverse("console:staff", args=[slug])).status_code == 403
        response = client.post(
            reverse("console:staff", args=[slug]), staff_form("scorekeeper", "x")
        )
        assert response.status_code == 403
        response = client.post(
            reverse("console:staff_invite", args=[slug]), {"invite-role": "scorekeeper"}
        )
        assert response.status_code == 403
    assert client.get(f"/clubs/{rival_club.slug}/manage/").status_code == 403
    response = client.post(f"/clubs/{rival_club.slug}/nights/new/", {"date": "2026-09-02"})
    assert response.status_code == 403
    assert rows() == before
    assert not theirs.is_director(scorer) and not mine.is_director(rival)


def test_an_ordinary_tournaments_co_director_gets_that_tournament_only(client, event):
    td = User.objects.create_user("td", "td@example.org", PASSWORD)
    services.add_staff(event, role="director", user=td, actor="test")
    client.force_login(td)
    staff = reverse("console:staff", args=[event.slug])
    assert client.post(staff, staff_form("director", "co-td")).status_code == 302
    co = User.objects.get(username="co-td")
    assert event.is_director(co)
    no_site_wide_power(Client(), co)
    no_site_wide_power(Client(), td)


def test_creation_is_a_granted_audited_right(client, event):
    user = User.objects.create_user("organiser", "org@example.org", PASSWORD)
    boss = User.objects.create_superuser("boss", "boss@example.org", PASSWORD)
    no_site_wide_power(client, user)
    assert grant_create_tournaments(user, actor=boss) is True
    assert grant_create_tournaments(user, actor=boss) is False  # held already: no event
    [granted] = AuditEvent.objects.filter(action="grant_create_tournaments")
    assert granted.user == boss and granted.after["user"] == "organiser"
    user = User.objects.get(pk=user.pk)
    client.force_login(user)
    assert client.get("/console/new/").status_code == 200
    assert "new-tournament" in client.get("/console/").content.decode()
    assert not user.is_staff  # creating tournaments opens no admin
    assert revoke_create_tournaments(user, actor=boss) is True
    assert revoke_create_tournaments(user, actor=boss) is False
    assert AuditEvent.objects.filter(action="revoke_create_tournaments").count() == 1
    client.force_login(User.objects.get(pk=user.pk))
    assert client.get("/console/new/").status_code == 403


def test_admin_staff_changes_are_superusers_and_audited(client, event):
    boss = User.objects.create_superuser("boss", "boss@example.org", PASSWORD)
    td = User.objects.create_user("td", "td@example.org", PASSWORD)
    keeper = User.objects.create_user("keeper", "k@example.org", PASSWORD)
    client.force_login(boss)
    url = reverse("admin:tournament_tournament_change", args=[event.pk])
    data = admin_form(client.get(url))
    data["directors"] = [str(td.pk)]
    data["scorekeepers"] = [str(keeper.pk)]
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    events = AuditEvent.objects.filter(tournament=event, action="add_staff").order_by("id")
    assert [(e.after["user"], e.after["role"], e.user) for e in events] == [
        ("td", "director", boss),
        ("keeper", "scorekeeper", boss),
    ]
    data["scorekeepers"] = []
    assert client.post(url, data).status_code == 302
    [removed] = AuditEvent.objects.filter(tournament=event, action="remove_staff")
    assert removed.before == {"user": "keeper", "role": "scorekeeper"}
    td.refresh_from_db()
    assert not td.is_staff  # made a director in the admin: still no admin for them


def test_the_admin_is_for_superusers_and_named_officers_only(client, event):
    """The staff flag alone (what directors used to get) opens no admin page, nor does a
    club's organiser's officership of the club's own list; a named officer who also directs
    sees the tournament's staff read-only (no list of every account) and adds no tournament."""
    td = User.objects.create_user("td", "td@example.org", PASSWORD, is_staff=True)
    td.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    event.directors.add(td)
    client.force_login(td)
    url = reverse("admin:tournament_tournament_change", args=[event.pk])
    for page in ("/admin/", url, "/admin/tournament/game/"):
        response = client.get(page)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], page
    organiser = User.objects.create_user("org", "org@example.org", PASSWORD, is_staff=True)
    club_client = Client()
    club_client.force_login(organiser)
    found_club_and_start_night(club_client, "Staff Club")
    assert club_client.get("/admin/").status_code == 302

    name_admin_officer(td)
    client.force_login(User.objects.get(pk=td.pk))
    boss = User.objects.create_superuser("boss", "boss@example.org", PASSWORD)
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="directors"' not in page.content.decode()
    assert boss.username not in re.sub(r"<[^>]+>", " ", page.content.decode())
    data = admin_form(page)
    data["directors"] = [str(td.pk), str(boss.pk)]
    before = rows()
    client.post(url, data)
    assert list(event.directors.all()) == [td]
    assert not AuditEvent.objects.filter(action="add_staff").exists()
    assert client.get(reverse("admin:tournament_tournament_add")).status_code == 403
    assert rows()[4] == before[4]


def test_the_migration_keeps_existing_directors_working(event):
    """0008: directors from before keep creating tournaments and lose the staff flag unless
    they are superusers or named officers; running it leaves other accounts alone."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("tournament.migrations.0008_h19_staff_create_permission")
    old_td = User.objects.create_user("old-td", "", PASSWORD, is_staff=True)
    registry_td = User.objects.create_user("reg-td", "", PASSWORD, is_staff=True)
    registry_td.user_permissions.add(Permission.objects.get(codename="manage_registry"))
    admin_td = User.objects.create_superuser("admin-td", "", PASSWORD)
    bystander = User.objects.create_user("bystander", "", PASSWORD, is_staff=True)
    for user in (old_td, registry_td, admin_td):
        event.directors.add(user)
    migration.grant_directors(apps, None)
    old_td, registry_td, bystander = (
        User.objects.get(pk=u.pk) for u in (old_td, registry_td, bystander)
    )
    assert old_td.has_perm("tournament.create_tournament") and not old_td.is_staff
    assert registry_td.has_perm("tournament.create_tournament") and registry_td.is_staff
    assert User.objects.get(pk=admin_td.pk).is_staff
    assert bystander.is_staff and not bystander.has_perm("tournament.create_tournament")


def test_demo_director_directs_the_demo_and_is_no_superuser(db):
    from tournament.demo import DEMO_SLUG, ensure_director, load_demo

    load_demo()
    User.objects.create_superuser("director", "", PASSWORD)  # as an older version made it
    name, _ = ensure_director(password="given-password-9")
    user = User.objects.get(username=name)
    assert not user.is_superuser and not user.is_staff
    assert user.has_perm("tournament.create_tournament")
    assert Tournament.objects.get(slug=DEMO_SLUG).is_director(user)
    assert AuditEvent.objects.filter(action="grant_create_tournaments", user=None).exists()
    call_command("check")


def test_rights_changed_in_the_admins_account_pages_are_audited(client):
    boss = User.objects.create_superuser("boss", "boss@example.org", PASSWORD)
    ann = User.objects.create_user("ann", "ann@example.org", PASSWORD)
    client.force_login(boss)
    url = reverse("admin:auth_user_change", args=[ann.pk])
    data = admin_form(client.get(url))
    joined = data.pop("date_joined").split(" ")  # a split date and time widget
    data.update({"date_joined_0": joined[0], "date_joined_1": joined[1][:8]})
    data.pop("last_login")
    create = Permission.objects.get(codename="create_tournament")
    data["user_permissions"] = [str(create.pk)]
    data["is_staff"] = "on"
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    [event] = AuditEvent.objects.filter(action="admin_change", object_type="User")
    assert event.user == boss and event.object_id == str(ann.pk)
    assert event.before["permissions"] == [] and not event.before["is_staff"]
    assert event.after["permissions"] == ["tournament.create_tournament"]
    assert event.after["is_staff"]
    # saving again unchanged writes nothing
    assert client.post(url, data).status_code == 302
    assert AuditEvent.objects.filter(object_type="User").count() == 1
    delete = reverse("admin:auth_user_delete", args=[ann.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    [gone] = AuditEvent.objects.filter(action="admin_delete", object_type="User")
    assert gone.before["permissions"] == ["tournament.create_tournament"]


def test_manage_user_command_grants_and_revokes(capsys):
    import json
    from io import StringIO

    from django.core.management.base import CommandError

    ann = User.objects.create_user("ann", "ann@example.org", PASSWORD)

    def run(*args: str) -> str:
        out = StringIO()
        call_command("manage_user", *args, stdout=out, stderr=StringIO())
        return out.getvalue()

    assert run("ann") == "ann may not create tournaments\n"
    assert run("ANN", "--may-create-tournaments") == "ann may create tournaments\n"
    assert run("ann", "--may-create-tournaments") == "ann may create tournaments (unchanged)\n"
    assert json.loads(run("ann", "--may-create-tournaments", "--json"))["changed"] is False
    assert User.objects.get(pk=ann.pk).has_perm("tournament.create_tournament")
    [granted] = AuditEvent.objects.filter(action="grant_create_tournaments")
    assert granted.actor == "manage_user"
    data = json.loads(run("ann", "--no-create-tournaments", "--json"))
    assert data["may_create_tournaments"] is False and data["changed"] is True
    assert AuditEvent.objects.filter(action="revoke_create_tournaments").count() == 1
    before = rows()
    with pytest.raises(CommandError) as refused:
        run("nobody", "--may-create-tournaments")
    assert "there is no account 'nobody'" in str(refused.value)
    with pytest.raises(CommandError):
        run("ann", "--may-create-tournaments", "--no-create-tournaments")
    assert rows() == before
