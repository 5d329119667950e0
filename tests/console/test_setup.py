"""Setting up a tournament from the console: the new-tournament page, TSH uploads and the
settings page (tournament, divisions, schedule ranges, forbidden pairs, publishing)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from pairings.models import ForbiddenPair, ScheduleRange
from pairings.services.schedule import add_schedule_range
from ratings.models import RatingList
from tests.conftest import REAL_DATA
from tests.core.conftest import make_director
from tournament import services
from tournament.formats.tourney_js import write_tourney_js
from tournament.interchange.exports import export_archive, export_files, export_tourney_js
from tournament.interchange.imports import import_tsh, max_upload_bytes
from tournament.models import AuditEvent, Division, Entry, Player, Tournament

pytestmark = pytest.mark.django_db

NEW = "/console/new/"
UPLOAD = "/console/new/upload/"


def counts() -> tuple[int, ...]:
    return (
        Tournament.objects.count(),
        Division.objects.count(),
        AuditEvent.objects.count(),
        ScheduleRange.objects.count(),
        ForbiddenPair.objects.count(),
        Entry.objects.count(),
        Player.objects.count(),
    )


@pytest.fixture
def staff_client(client):
    """An account a site administrator let create tournaments (no staff flag: no admin)."""
    user = get_user_model().objects.create_user(
        "founder", "founder@example.org", "pw-long-enough-1"
    )
    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    client.force_login(user)
    client.user = user
    return client


def new_form(**over) -> dict[str, str]:
    """The new-tournament page's fields, every setting filled in, three division blocks."""
    data = {
        "name": "Spring Open",
        "start_date": "2025-04-05",
        "end_date": "2025-04-06",
        "venue": "Town Hall",
        "realm": "wespa",
        "bye_spread": "75",
        "forfeit_spread": "-60",
        "spread_cap": "300",
        "standings_spread_cap": "on",
        "sum_before_spread": "on",
        "max_rounds": "12",
        "gibson_spread": "400",
        "late_entry": "bye",
        "paper": "a4",
        "divisions-TOTAL_FORMS": "3",
        "divisions-INITIAL_FORMS": "0",
        "divisions-MIN_NUM_FORMS": "0",
        "divisions-MAX_NUM_FORMS": "30",
        "divisions-0-name": "Open A",
        "divisions-0-slug": "",
        "divisions-0-rounds": "12",
        "divisions-0-rating_system": "absp",
        "divisions-0-rating_list": "",
        "divisions-0-prize_places": "3",
        "divisions-1-name": "Lite",
        "divisions-1-slug": "lite-b",
        "divisions-1-rounds": "8",
        "divisions-1-rating_system": "",
        "divisions-1-rating_list": "",
        "divisions-1-prize_places": "1",
        # an untouched block (its initial values) is skipped
        "divisions-2-name": "",
        "divisions-2-slug": "",
        "divisions-2-rounds": "7",
        "divisions-2-rating_system": "",
        "divisions-2-rating_list": "",
        "divisions-2-prize_places": "0",
    }
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def error_at(response, field_id: str) -> str:
    """The error text shown at a field (its id is id_<name>_error), or "" when none."""
    html = response.content.decode()
    m = re.search(rf'id="id_{re.escape(field_id)}_error">([^<]*)<', html)
    return m.group(1) if m else ""


def test_create_with_every_setting_makes_a_hidden_draft_until_published(staff_client):
    client = Client()  # anonymous, beside the signed-in one
    rating_list = RatingList.objects.create(name="UK", slug="uk", system="absp")
    response = staff_client.post(NEW, new_form(**{"divisions-0-rating_list": rating_list.pk}))
    assert response.status_code == 302, response.content.decode()[:3000]
    t = Tournament.objects.get()
    assert response["Location"] == reverse("console:setup", args=[t.slug])
    assert (t.name, t.venue, t.realm, t.paper, t.late_entry) == (
        "Spring Open",
        "Town Hall",
        "wespa",
        "a4",
        "bye",
    )
    assert (t.start_date, t.end_date) == (dt.date(2025, 4, 5), dt.date(2025, 4, 6))
    assert (t.bye_spread, t.forfeit_spread, t.spread_cap, t.max_rounds) == (75, -60, 300, 12)
    assert t.standings_spread_cap and t.sum_before_spread and not t.gibson
    assert t.gibson_spread == 400
    assert list(t.directors.all()) == [staff_client.user] and not t.published
    a, b = t.divisions.order_by("position")
    assert (a.name, a.slug, a.rounds, a.rating_system, a.prize_places, a.rating_list) == (
        "Open A",
        "open-a",
        12,
        "absp",
        3,
        rating_list,
    )
    # a blank rating system takes the realm's preset
    assert (b.name, b.slug, b.rounds, b.rating_system, b.prize_places) == (
        "Lite",
        "lite-b",
        8,
        "wespa-tsh",
        1,
    )
    assert list(AuditEvent.objects.order_by("id").values_list("action", flat=True)) == [
        "create_tournament",
        "create_division",
        "create_division",
    ]
    # a draft: public page and feed are 404 for everyone but its staff
    assert client.get(f"/t/{t.slug}/").status_code == 404
    assert client.get(f"/t/{t.slug}/tourney.js").status_code == 404
    assert staff_client.get(f"/t/{t.slug}/").status_code == 200
    assert staff_client.get(reverse("console:setup", args=[t.slug])).status_code == 200
    response = staff_client.post(
        reverse("console:setup_publish", args=[t.slug]), {"published": "1"}
    )
    assert response.status_code == 302
    assert client.get(f"/t/{t.slug}/").status_code == 200
    assert client.get(f"/t/{t.slug}/tourney.js").status_code == 200
    assert AuditEvent.objects.filter(action="publish_tournament").count() == 1
    staff_client.post(reverse("console:setup_publish", args=[t.slug]), {"published": "0"})
    assert client.get(f"/t/{t.slug}/").status_code == 404
    assert AuditEvent.objects.filter(action="unpublish_tournament").count() == 1


def test_blank_spreads_take_the_realm_preset(staff_client):
    response = staff_client.post(NEW, new_form(realm="absp", bye_spread="", forfeit_spread=""))
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.bye_spread, t.forfeit_spread) == (100, -100)


def test_setup_takes_spread_caps_by_round_and_shows_them_back(td, event):
    """TSH caps by round ([100, 100, 150]); the Setup page takes "100,100,150" and shows it."""
    t, _, _ = event
    url = reverse("console:setup", args=[t.slug])
    response = td.post(url, settings_form(t, spread_cap="100, 100,150"))
    assert response.status_code == 302
    t.refresh_from_db()
    assert (t.spread_cap, t.spread_caps) == (None, [100, 100, 150])
    assert 'value="100,100,150"' in td.get(url).content.decode()
    response = td.post(url, settings_form(t, spread_cap="100,abc"))
    assert response.status_code == 400
    assert "abc" in error_at(response, "spread_cap")
    t.refresh_from_db()
    assert t.spread_caps == [100, 100, 150]


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"name": ""}, "name", "required"),
        ({"name": "   "}, "name", "required"),
        ({"end_date": "2025-04-01"}, "end_date", "before the start date"),
        ({"realm": "mars"}, "realm", "mars"),
        ({"bye_spread": "-10"}, "bye_spread", "at least 0"),
        ({"forfeit_spread": "20"}, "forfeit_spread", "at most 0"),
        ({"spread_cap": "-5"}, "spread_cap", "at least 1"),
        ({"gibson_spread": "-1"}, "gibson_spread", "at least 0"),
        ({"max_rounds": "0"}, "max_rounds", "at least 1"),
        ({"divisions-0-rating_system": "chess"}, "divisions-0-rating_system", "chess"),
        ({"divisions-0-rounds": "0"}, "divisions-0-rounds", "at least 1"),
        ({"divisions-1-prize_places": "-2"}, "divisions-1-prize_places", "at least 0"),
        ({"divisions-1-slug": "Bad Slug"}, "divisions-1-slug", "lower-case"),
        ({"divisions-1-slug": "setup"}, "divisions-1-slug", "console page"),
        ({"divisions-1-name": "open a"}, "divisions-1-name", "already used"),
        ({"divisions-0-name": ""}, "divisions-0-name", "required"),
    ],
)
def test_bad_new_tournament_is_refused_at_its_field(staff_client, over, field, words):
    before = counts()
    response = staff_client.post(NEW, new_form(**over))
    assert response.status_code == 400
    assert words in error_at(response, field), response.content.decode()[:4000]
    assert counts() == before


def test_new_page_needs_the_creation_grant(client):
    assert client.get(NEW).status_code == 302
    assert client.get(NEW)["Location"].startswith("/accounts/login/")
    user = get_user_model().objects.create_user("player", "p@example.org", "pw-long-enough-1")
    client.force_login(user)
    before = counts()
    assert client.get(NEW).status_code == 403
    assert client.post(NEW, new_form()).status_code == 403
    assert client.post(UPLOAD, {}).status_code == 403
    # the staff flag alone (what directors used to get) no longer opens it
    user.is_staff = True
    user.save()
    assert client.get(NEW).status_code == 403
    assert client.post(UPLOAD, {}).status_code == 403
    assert "new-tournament" not in client.get(reverse("console_site:tournaments")).content.decode()
    assert counts() == before


def test_new_page_renders(staff_client):
    response = staff_client.get(NEW)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="divisions-0-name"' in body and 'name="upload-file"' in body


# --------------------------------------------------------------------------- uploads


@pytest.fixture
def source():
    """The real division file imported once, to export the other three kinds from."""
    return import_tsh(REAL_DATA / "naspa-2023-a.t", rounds=23, actor="test")


def _upload(client, file_name: str, data: bytes, others=(), **fields):
    payload = {"upload-file": SimpleUploadedFile(file_name, data)}
    if others:
        payload["upload-division_files"] = [SimpleUploadedFile(n, d) for n, d in others]
    payload.update({f"upload-{k}": v for k, v in fields.items()})
    return client.post(UPLOAD, payload)


def _job_page(response, client) -> str:
    """The upload answers with its import job's page (the suite runs the job inline)."""
    assert response.status_code == 302, response.content.decode()[:3000]
    assert response["Location"].startswith("/console/imports/"), response["Location"]
    page = client.get(response["Location"])
    assert page.status_code == 200
    return page.content.decode()


def _check_uploaded(response, client, source: Tournament) -> Tournament:
    page = _job_page(response, client)
    t = Tournament.objects.exclude(pk=source.pk).get()
    assert f'href="{reverse("console:setup", args=[t.slug])}"' in page, page[-3000:]
    assert not t.published and client.user in t.directors.all()
    [d] = t.divisions.all()
    [src] = source.divisions.all()
    assert d.entries.count() == src.entries.count() > 20
    assert d.round_set.count() == 23
    return t


def test_upload_a_t_file(staff_client, source):
    data = (REAL_DATA / "naspa-2023-a.t").read_bytes()
    t = _check_uploaded(
        _upload(staff_client, "naspa-2023-a.t", data, rounds="23"), staff_client, source
    )
    assert t.name == "naspa-2023-a"


def test_upload_a_config_with_its_division_file(staff_client, source):
    files = export_files(source)
    [t_name] = [n for n in files if n.endswith(".t")]
    config = files["config.tsh"].encode()
    response = _upload(
        staff_client,
        "config.tsh",
        config,
        others=[(t_name, files[t_name].encode())],
        name="From config",
    )
    t = _check_uploaded(response, staff_client, source)
    assert t.name == "From config"


def test_upload_an_all_tsh_archive(staff_client, source):
    data = export_archive(source).encode()
    _check_uploaded(_upload(staff_client, "all.tsh", data), staff_client, source)


def test_upload_a_tourney_js(staff_client, source):
    data = write_tourney_js(export_tourney_js(source, public=False)).encode()
    _check_uploaded(_upload(staff_client, "tourney.js", data), staff_client, source)


def test_malformed_upload_is_refused_with_file_and_line(staff_client):
    lines = (REAL_DATA / "naspa-2023-a.t").read_text().splitlines()
    lines[2] = lines[2].replace(" 24 18 12", " 24 x 12", 1)
    before = counts()
    response = _upload(staff_client, "spring.t", "\n".join(lines).encode())
    # the parse is the job's: its page says what failed where
    page = _job_page(response, staff_client)
    assert "The import failed; nothing was created." in page
    assert "spring.t line 3" in page and "gibson-upload" not in page
    assert counts() == before


def test_config_without_its_division_file_is_refused(staff_client, source):
    config = export_files(source)["config.tsh"]
    before = counts()
    response = _upload(staff_client, "config.tsh", config.encode())
    assert response.status_code == 400
    assert "not among the uploaded files" in error_at(response, "upload-file")
    # a config naming a file outside the upload is never read
    sneaky = re.sub(r"(?m)^division (\S+) \S+", r"division \1 ../../../etc/passwd", config)
    response = _upload(staff_client, "config.tsh", sneaky.encode())
    assert response.status_code == 400
    assert "not among the uploaded files" in error_at(response, "upload-file")
    assert counts() == before


def test_too_large_and_empty_uploads_are_refused(staff_client):
    before = counts()
    response = _upload(staff_client, "big.t", b"x" * (max_upload_bytes() + 1))
    assert response.status_code == 400
    assert "limited to 5 MB in all (GIBSON_MAX_UPLOAD_MB)" in error_at(response, "upload-file")
    response = _upload(staff_client, "empty.t", b"")
    assert response.status_code == 400 and error_at(response, "upload-file")
    response = staff_client.post(UPLOAD, {})
    assert response.status_code == 400 and "required" in error_at(response, "upload-file")
    assert counts() == before


# --------------------------------------------------------------------------- settings page


@pytest.fixture
def event():
    t = services.create_tournament(name="Setup Open", published=False)
    a = services.create_division(t, name="A", rounds=7)
    b = services.create_division(t, name="B", rounds=5)
    for name in ("Ann", "Bob", "Cat", "Dan"):
        services.register_player(a, name=name, rating=1500)
    return t, a, b


@pytest.fixture
def td(client, event):
    t, _, _ = event
    client.force_login(make_director(t, "setup-td"))
    return client


def settings_form(t: Tournament, **over) -> dict[str, str]:
    data = {
        "name": t.name,
        "start_date": "",
        "end_date": "",
        "venue": "",
        "realm": t.realm,
        "bye_spread": str(t.bye_spread),
        "forfeit_spread": str(t.forfeit_spread),
        "spread_cap": "",
        "max_rounds": "",
        "gibson": "on",
        "gibson_spread": str(t.gibson_spread),
        "late_entry": t.late_entry,
        "paper": t.paper,
    }
    data.update(over)
    return data


def division_form(d: Division, **over) -> dict[str, str]:
    data = {
        "name": d.name,
        "slug": d.slug,
        "rounds": str(d.rounds),
        "rating_system": d.rating_system,
        "rating_list": "",
        "prize_places": str(d.prize_places),
    }
    data.update(over)
    return {f"div-{d.pk}-{k}": v for k, v in data.items()}


def test_settings_page_shows_every_section(td, event):
    t, a, b = event
    response = td.get(reverse("console:setup", args=[t.slug]))
    assert response.status_code == 200
    body = response.content.decode()
    for marker in (
        'name="bye_spread"',
        f'name="div-{a.pk}-rounds"',
        f'name="pair-{a.pk}-number_a"',
        f'name="newrange-{b.pk}-system"',
        'name="newdiv-name"',
        "Publish",
    ):
        assert marker in body


def test_update_tournament_settings(td, event):
    t, _, _ = event
    url = reverse("console:setup", args=[t.slug])
    response = td.post(
        url,
        settings_form(
            t,
            venue="Library",
            spread_cap="250",
            start_date="2025-05-01",
            end_date="2025-05-02",
            paper="a4",
            realm="absp",
        ),
    )
    assert response.status_code == 302
    t.refresh_from_db()
    assert (t.venue, t.spread_cap, t.paper, t.realm) == ("Library", 250, "a4", "absp")
    [event] = AuditEvent.objects.filter(action="update_tournament")
    assert event.after["venue"] == "Library" and event.before["venue"] == ""


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"name": ""}, "name", "required"),
        ({"start_date": "2025-05-02", "end_date": "2025-05-01"}, "end_date", "before"),
        ({"realm": "moon"}, "realm", "moon"),
        ({"bye_spread": "-1"}, "bye_spread", "at least 0"),
        ({"forfeit_spread": "5"}, "forfeit_spread", "at most 0"),
        ({"spread_cap": "0"}, "spread_cap", "at least 1"),
        ({"late_entry": "later"}, "late_entry", "later"),
    ],
)
def test_bad_tournament_settings_are_refused(td, event, over, field, words):
    t, _, _ = event
    before = counts()
    response = td.post(reverse("console:setup", args=[t.slug]), settings_form(t, **over))
    assert response.status_code == 400
    assert words in error_at(response, field)
    assert counts() == before
    t.refresh_from_db()
    assert t.name == "Setup Open" and t.bye_spread == 50


def test_update_division_and_its_slug(td, event):
    t, a, b = event
    rating_list = RatingList.objects.create(name="NA", slug="na")
    url = reverse("console:setup_division", args=[t.slug, a.slug])
    response = td.post(
        url,
        division_form(
            a,
            name="Alpha",
            slug="alpha",
            rounds="9",
            rating_system="glicko2",
            prize_places="2",
            rating_list=str(rating_list.pk),
        ),
    )
    assert response.status_code == 302
    a.refresh_from_db()
    assert (a.name, a.slug, a.rounds, a.rating_system, a.prize_places, a.rating_list) == (
        "Alpha",
        "alpha",
        9,
        "glicko2",
        2,
        rating_list,
    )
    assert AuditEvent.objects.filter(action="update_division").count() == 1


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"slug": "B"}, "slug", "lower-case"),
        ({"slug": "b"}, "slug", "already used"),
        ({"slug": "staff"}, "slug", "console page"),
        ({"name": "b"}, "name", "already used"),
        ({"name": ""}, "name", "required"),
        ({"rounds": "0"}, "rounds", "at least 1"),
        ({"rating_system": "chess"}, "rating_system", "chess"),
        ({"prize_places": "-1"}, "prize_places", "at least 0"),
    ],
)
def test_bad_division_settings_are_refused(td, event, over, field, words):
    t, a, _ = event
    before = counts()
    response = td.post(
        reverse("console:setup_division", args=[t.slug, a.slug]), division_form(a, **over)
    )
    assert response.status_code == 400
    assert words in error_at(response, f"div-{a.pk}-{field}")
    assert counts() == before


def test_rounds_cannot_go_below_the_rounds_paired(client, source):
    client.force_login(make_director(source, "real-td"))
    [d] = source.divisions.all()
    before = counts()
    response = client.post(
        reverse("console:setup_division", args=[source.slug, d.slug]), division_form(d, rounds="20")
    )
    assert response.status_code == 400
    assert "paired up to round 23" in error_at(response, f"div-{d.pk}-rounds")
    assert counts() == before
    response = client.post(
        reverse("console:setup_division", args=[source.slug, d.slug]), division_form(d, rounds="25")
    )
    assert response.status_code == 302


def test_add_division_on_the_settings_page(td, event):
    t, _, _ = event
    url = reverse("console:setup_add_division", args=[t.slug])
    response = td.post(
        url,
        {
            "newdiv-name": "C",
            "newdiv-slug": "",
            "newdiv-rounds": "6",
            "newdiv-rating_system": "",
            "newdiv-prize_places": "1",
        },
    )
    assert response.status_code == 302
    c = t.divisions.get(name="C")
    assert (c.slug, c.rounds, c.rating_system, c.prize_places) == ("c", 6, "nsa2008", 1)
    before = counts()
    response = td.post(url, {"newdiv-name": "c", "newdiv-rounds": "6", "newdiv-prize_places": "0"})
    assert response.status_code == 400 and "already used" in error_at(response, "newdiv-name")
    assert counts() == before


def range_form(prefix: str, first: int, last: int, system: str = "swiss", lag: int = 0):
    return {
        f"{prefix}-first_round": str(first),
        f"{prefix}-last_round": str(last),
        f"{prefix}-system": system,
        f"{prefix}-lag": str(lag),
    }


def test_schedule_ranges_add_edit_remove_and_overlap(td, event):
    t, a, _ = event
    add = reverse("console:setup_range_add", args=[t.slug, a.slug])
    p = f"newrange-{a.pk}"
    assert td.post(add, range_form(p, 1, 3, "fontes")).status_code == 302
    assert td.post(add, range_form(p, 4, 7, "swiss", 1)).status_code == 302
    r1, r2 = a.schedule_ranges.order_by("first_round")
    assert (r2.first_round, r2.last_round, r2.system, r2.lag) == (4, 7, "swiss", 1)
    before = counts()
    for bad, field, words in [
        (range_form(p, 3, 5), "first_round", "overlap"),
        (range_form(p, 5, 4), "last_round", "at least 5"),
        (range_form(p, 0, 1), "first_round", "at least 1"),
        (range_form(p, 1, 9), "last_round", "beyond the 7 rounds"),
        (range_form(p, 1, 1, "chess"), "system", "chess"),
        (range_form(p, 1, 1, "swiss", -1), "lag", "at least 0"),
    ]:
        response = td.post(add, bad)
        assert response.status_code == 400, bad
        assert words in error_at(response, f"{p}-{field}"), (bad, response.content.decode())
    # editing one range may not make it overlap another
    edit = reverse("console:setup_range", args=[t.slug, a.slug, r1.pk])
    response = td.post(edit, range_form(f"range-{r1.pk}", 1, 5, "fontes"))
    assert response.status_code == 400
    assert "overlap" in error_at(response, f"range-{r1.pk}-first_round")
    assert counts() == before
    assert td.post(edit, range_form(f"range-{r1.pk}", 1, 2, "koth")).status_code == 302
    r1.refresh_from_db()
    assert (r1.last_round, r1.system) == (2, "koth")
    assert td.post(edit, {"delete": "1"}).status_code == 302
    assert list(a.schedule_ranges.all()) == [r2]
    actions = list(
        AuditEvent.objects.filter(action__contains="schedule_range").values_list(
            "action", flat=True
        )
    )
    assert sorted(actions) == [
        "add_schedule_range",
        "add_schedule_range",
        "delete_schedule_range",
        "update_schedule_range",
    ]


def test_forbidden_pairs(td, event):
    t, a, _ = event
    add = reverse("console:setup_pair_add", args=[t.slug, a.slug])
    p = f"pair-{a.pk}"
    response = td.post(add, {f"{p}-number_a": "1", f"{p}-number_b": "2", f"{p}-reason": "siblings"})
    assert response.status_code == 302
    pair = ForbiddenPair.objects.get()
    assert (pair.entry_a.number, pair.entry_b.number, pair.reason) == (1, 2, "siblings")
    before = counts()
    for a_num, b_num, field, words in [
        ("1", "99", "number_b", "no player number 99"),
        ("0", "2", "number_a", "at least 1"),
        ("3", "3", "number_b", "themself"),
        ("2", "1", "number_a", "already kept apart"),
    ]:
        response = td.post(add, {f"{p}-number_a": a_num, f"{p}-number_b": b_num})
        assert response.status_code == 400
        assert words in error_at(response, f"{p}-{field}")
    assert counts() == before
    delete = reverse("console:setup_pair_delete", args=[t.slug, a.slug, pair.pk])
    assert td.post(delete).status_code == 302
    assert ForbiddenPair.objects.count() == 0
    assert AuditEvent.objects.filter(action="delete_forbidden_pair").count() == 1


def test_htmx_gets_the_division_section_back(td, event):
    t, a, _ = event
    add = reverse("console:setup_pair_add", args=[t.slug, a.slug])
    p = f"pair-{a.pk}"
    response = td.post(add, {f"{p}-number_a": "1", f"{p}-number_b": "77"}, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 400 and "<html" not in body
    assert f'id="division-{a.pk}"' in body and "no player number 77" in body
    response = td.post(add, {f"{p}-number_a": "1", f"{p}-number_b": "4"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "never v #4" in response.content.decode()


def test_another_division_or_its_objects_cannot_be_reached(td, event):
    t, a, b = event
    other = services.create_tournament(name="Elsewhere")
    od = services.create_division(other, name="A")
    rng = add_schedule_range(od, first_round=1, last_round=2, system="swiss", actor="test")
    url = reverse("console:setup_range", args=[t.slug, a.slug, rng.pk])
    assert td.post(url, {"delete": "1"}).status_code == 404
    assert ScheduleRange.objects.filter(pk=rng.pk).exists()
    url = reverse("console:setup_division", args=[t.slug, "nope"])
    assert td.post(url, division_form(a)).status_code == 404


SETUP_URLS = [
    ("console:setup", "get", {}),
    ("console:setup", "post", {}),
    ("console:setup_publish", "post", {"published": "1"}),
    ("console:setup_add_division", "post", {}),
    ("console:setup_division", "post", {}),
    ("console:setup_range_add", "post", {}),
    ("console:setup_pair_add", "post", {}),
]


def _url(name: str, t: Tournament, a: Division) -> str:
    return reverse(
        name,
        args=[t.slug, a.slug]
        if "division" in name and "add" not in name or name.endswith(("range_add", "pair_add"))
        else [t.slug],
    )


@pytest.mark.parametrize("name, method, data", SETUP_URLS)
def test_setup_denials(client, event, name, method, data):
    t, a, _ = event
    other = services.create_tournament(name="Other Open")
    url = _url(name, t, a)
    before = counts()
    response = getattr(client, method)(url, data)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    client.force_login(make_director(other, "other-td"))
    assert getattr(client, method)(url, data).status_code == 403
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert getattr(client, method)(url, data).status_code == 403
    assert counts() == before
    t.refresh_from_db()
    assert not t.published


def test_absurd_row_numbers_are_404_not_500(td, event):
    t, a, _ = event
    url = reverse("console:setup_range", args=[t.slug, a.slug, 10**30])
    assert td.post(url, {"delete": "1"}).status_code == 404
    url = reverse("console:setup_pair_delete", args=[t.slug, a.slug, 10**30])
    assert td.post(url).status_code == 404
    url = reverse("console:staff_remove", args=[t.slug])
    assert td.post(url, {"user": "9" * 40, "role": "director"}).status_code == 400
