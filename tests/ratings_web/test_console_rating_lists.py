"""/console/rating-lists/: opening a rating list and loading its starting ratings without the
admin, with the same rights and audit trail as ``manage.py import_ratings`` (issue 31: "a
rating list needs the admin")."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from ratings.models import PlayerRating, RatingList
from ratings.services import create_rating_list
from tournament.models import AuditEvent

pytestmark = pytest.mark.django_db
URL = "/console/rating-lists/"
CSV = b"Able, Ann,1905,120\nBaker, Bo,1820,40\n"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def admin_user():
    return get_user_model().objects.create_superuser("site", "site@example.org", "pw-long-1")


@pytest.fixture
def director():
    return get_user_model().objects.create_user("td", "td@example.org", "pw-long-1")


def upload(body: bytes = CSV, name: str = "nwl.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, body, content_type="text/csv")


def state():
    return (
        RatingList.objects.count(),
        PlayerRating.objects.count(),
        AuditEvent.objects.count(),
    )


def test_anonymous_is_sent_to_sign_in():
    assert Client().get(URL).status_code == 302
    assert Client().post(URL, {"action": "open", "open-name": "X"}).status_code == 302
    assert state() == (0, 0, 0)


def test_a_site_administrator_opens_a_list_and_loads_its_ratings(admin_user):
    page = client_for(admin_user)
    assert 'id="open-list"' in page.get(URL).content.decode()
    r = page.post(URL, {"action": "open", "open-name": "NASPA NWL", "open-system": "nsa2008"})
    assert r.status_code == 200 and "NASPA NWL opened" in r.content.decode()
    lst = RatingList.objects.get(name="NASPA NWL")
    assert lst.slug == "naspa-nwl" and list(lst.officers.all()) == [admin_user]
    opened = AuditEvent.objects.get(action="open_rating_list")
    assert opened.actor == "site" and "NASPA NWL" in opened.summary
    r = page.post(URL, {"action": "load", "list": "naspa-nwl", "load-ratings_file": upload()})
    assert r.status_code == 200, r.content.decode()
    assert "2 ratings loaded, 2 new players" in r.content.decode()
    assert sorted(PlayerRating.objects.values_list("player__name", "rating")) == [
        ("Able, Ann", 1905),
        ("Baker, Bo", 1820),
    ]
    loaded = AuditEvent.objects.get(action="import_ratings")
    assert "nwl.csv" in loaded.summary and loaded.actor == "site"


def test_a_granted_account_may_open_and_becomes_the_officer(director):
    director.user_permissions.add(Permission.objects.get(codename="add_ratinglist"))
    r = client_for(director).post(
        URL, {"action": "open", "open-name": "Club L", "open-system": "club-third"}
    )
    assert r.status_code == 200
    assert RatingList.objects.get(name="Club L").officers.get() == director


def test_a_director_without_the_right_is_refused_and_nothing_changes(director):
    page = client_for(director)
    body = page.get(URL).content.decode()
    assert 'id="open-list"' not in body and 'id="no-lists"' in body
    before = state()
    r = page.post(URL, {"action": "open", "open-name": "Mine", "open-system": "nsa2008"})
    assert r.status_code == 403
    assert "site administrators" in r.content.decode()
    assert state() == before


def test_an_officer_loads_only_the_lists_they_keep(director):
    mine = create_rating_list("Mine", slug="mine")
    mine.officers.add(director)
    create_rating_list("Theirs", slug="theirs")
    page = client_for(director)
    body = page.get(URL).content.decode()
    assert 'id="list-mine"' in body and 'id="list-theirs"' not in body
    before = state()
    r = page.post(URL, {"action": "load", "list": "theirs", "load-ratings_file": upload()})
    assert (
        r.status_code == 400 and "you keep no rating list &#x27;theirs&#x27;" in r.content.decode()
    )
    assert state() == before


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"Able, Ann,lots\n", "nwl.csv line 1"),  # a rating that is not a number
        (b"", None),  # an empty file
    ],
)
def test_a_bad_file_names_the_line_and_loads_nothing(admin_user, body, words):
    create_rating_list("L", slug="l").officers.add(admin_user)
    before = state()
    r = client_for(admin_user).post(
        URL, {"action": "load", "list": "l", "load-ratings_file": upload(body)}
    )
    assert r.status_code == 400
    assert 'role="alert"' in r.content.decode()
    if words:
        assert words in r.content.decode()
    assert state() == before


def test_a_taken_name_and_an_unknown_action_are_messages(admin_user):
    create_rating_list("NASPA NWL", slug="nwl")
    page = client_for(admin_user)
    before = state()
    r = page.post(URL, {"action": "open", "open-name": "NASPA NWL", "open-system": "nsa2008"})
    assert r.status_code == 400 and "already exists" in r.content.decode()
    assert page.post(URL, {"action": "drop"}).status_code == 400
    assert state() == before


def test_the_command_opening_a_list_leaves_an_audit_event(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(CSV)
    call_command("import_ratings", "nwl", str(path), "--create", "NASPA NWL", stdout=StringIO())
    assert [e.action for e in AuditEvent.objects.order_by("pk")] == [
        "open_rating_list",
        "import_ratings",
    ]
