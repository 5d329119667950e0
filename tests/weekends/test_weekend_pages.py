"""The weekend and Federation files console pages, the weekend's public page: what each role
may reach, bad input refused by field with nothing changed, downloads recorded and shown."""

from __future__ import annotations

import datetime
import hashlib

import pytest
from django.contrib.auth import get_user_model

from ratings.models import RatedEvent
from tests.core.conftest import make_director
from tournament.interchange.imports import import_tsh
from tournament.models import AuditEvent, FederationDownload, Weekend, WeekendEvent
from tournament.services.weekends import add_event, create_weekend

pytestmark = pytest.mark.django_db


def console(t, page: str = "weekend/") -> str:
    return f"/t/{t.slug}/console/{page}"


@pytest.fixture
def roles(pair_of_events, td):
    """td directs both events; one_td directs only the early bird; keeper keeps its scores."""
    early, main = pair_of_events
    one_td = make_director(early, "td-one")
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    early.scorekeepers.add(keeper)
    main.scorekeepers.add(keeper)
    return {"td": td, "one_td": one_td, "keeper": keeper}


def state():
    return (
        list(Weekend.objects.values_list("slug", "name")),
        list(WeekendEvent.objects.values_list("tournament_id", "position", "seed_from_earlier")),
        RatedEvent.objects.count(),
        FederationDownload.objects.count(),
    )


def test_a_director_of_both_builds_and_submits_the_weekend_from_the_console(
    client, roles, pair_of_events, rating_list
):
    early, main = pair_of_events
    client.force_login(roles["td"])
    assert "Start a weekend" in client.get(console(early)).content.decode()
    r = client.post(console(early, "weekend/create/"), {"name": "Spring Weekend", "slug": "spring"})
    assert r.status_code == 302
    client.post(console(early, "weekend/add/"), {"event": main.slug, "position": ""})
    client.post(console(early, "weekend/seeding/"), {"event": main.slug, "seed_from_earlier": "on"})
    page = client.get(console(early)).content.decode()
    assert page.index("Early Bird") < page.index("Main Event") and 'id="weekend-submit"' in page
    r = client.post(console(main, "weekend/submit/"), {"rating_list": rating_list.slug})
    assert r.status_code == 302
    assert "rated on NASPA test, in order" in client.get(r["Location"]).content.decode()
    assert list(RatedEvent.objects.values_list("sequence", flat=True)) == [1, 2]
    public = client.get("/weekends/spring/").content.decode()
    assert public.index("Early Bird") < public.index("Main Event")


@pytest.mark.parametrize(
    "action, data, message",
    [
        ("weekend/create/", {"name": "", "slug": "x"}, "name: a weekend needs a name"),
        ("weekend/create/", {"name": "X", "slug": "No slug!"}, "slug: "),
        ("weekend/create/", {"name": "X", "slug": "spring"}, "slug: there is already"),
        ("weekend/add/", {"event": "nope", "position": ""}, "tournament: a weekend starts"),
        ("weekend/add/", {"event": "@main", "position": "7"}, "position: place &#x27;7&#x27;"),
        ("weekend/add/", {"event": "@main", "position": "\x00"}, "position: place"),
        ("weekend/move/", {"event": "@early", "position": "x"}, "position: place"),
        ("weekend/move/", {"event": "@main", "position": "1"}, "tournament: Main Event is not in"),
        ("weekend/remove/", {"event": ""}, "tournament: (none) is not in"),
        ("weekend/seeding/", {"event": "nope"}, "tournament: (none) is not in"),
        ("weekend/submit/", {"rating_list": "nope"}, "rating_list: division Spring"),
    ],
)
def test_bad_input_is_refused_by_field_and_changes_nothing(
    client, roles, pair_of_events, action, data, message
):
    early, main = pair_of_events
    create_weekend(roles["td"], "Spring", early, slug="spring")
    data = {k: {"@main": main.slug, "@early": early.slug}.get(v, v) for k, v in data.items()}
    client.force_login(roles["td"])
    before = state()
    r = client.post(console(early, action), data)
    assert r.status_code == 302
    assert message in client.get(r["Location"]).content.decode()
    assert state() == before


@pytest.mark.parametrize("who", ["anonymous", "keeper"])
@pytest.mark.parametrize(
    "action",
    [
        "weekend/",
        "weekend/create/",
        "weekend/add/",
        "weekend/move/",
        "weekend/remove/",
        "weekend/seeding/",
        "weekend/submit/",
        "federation/",
        "federation/naspa/download/",
    ],
)
def test_anonymous_and_scorekeepers_reach_no_page_or_action(
    client, roles, pair_of_events, rating_list, who, action
):
    early, main = pair_of_events
    create_weekend(roles["td"], "Spring", early, slug="spring")
    if who == "keeper":
        client.force_login(roles["keeper"])
    before = state()
    data = {"event": main.slug, "position": "1", "name": "X", "rating_list": rating_list.slug}
    r = (
        client.get(console(early, action))
        if action.count("/") == 1
        else client.post(console(early, action), data)
    )
    if who == "anonymous":
        assert r.status_code == 302 and "/accounts/login/" in r["Location"]
    else:
        assert r.status_code in (403, 405)
    assert state() == before


def test_a_director_of_only_one_event_sees_the_weekend_but_changes_nothing(
    client, roles, pair_of_events, rating_list
):
    early, main = pair_of_events
    w = create_weekend(roles["td"], "Spring", early, slug="spring")
    add_event(w, main, roles["td"])
    rating_list.officers.add(roles["one_td"])
    client.force_login(roles["one_td"])
    assert client.get(console(early)).status_code == 200
    assert client.get(console(main)).status_code == 403
    before = state()
    for action, data in (
        ("weekend/move/", {"event": main.slug, "position": "1"}),
        ("weekend/remove/", {"event": main.slug}),
        ("weekend/seeding/", {"event": main.slug, "seed_from_earlier": "on"}),
        ("weekend/submit/", {"rating_list": rating_list.slug}),
    ):
        r = client.post(console(early, action), data)
        assert "may not" in client.get(r["Location"]).content.decode(), action
    assert state() == before


def test_the_public_page_hides_draft_events_and_unknown_weekends(client, roles, pair_of_events):
    early, main = pair_of_events
    w = create_weekend(roles["td"], "Spring", early, slug="spring")
    add_event(w, main, roles["td"])
    for t in (early, main):
        t.published = False
        t.save(update_fields=["published"])
    assert client.get("/weekends/spring/").status_code == 404  # both drafts
    main.published = True
    main.save(update_fields=["published"])
    page = client.get("/weekends/spring/").content.decode()
    assert "Main Event" in page and "Early Bird" not in page
    assert client.get("/weekends/nope/").status_code == 404


# --- Federation files page ---------------------------------------------------------------------


@pytest.fixture
def real_event(real_data):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    t.start_date = datetime.date(2023, 2, 18)
    t.save(update_fields=["start_date"])
    return t, make_director(t, "td-real")


def test_the_page_shows_each_file_and_a_download_is_recorded_and_listed(client, real_event):
    t, td = real_event
    client.force_login(td)
    page = client.get(console(t, "federation/")).content.decode()
    for label in ("NASPA", "WESPA", "ABSP"):
        assert label in page
    assert page.count("No problems found.") == 3
    r = client.post(console(t, "federation/wespa/download/"))
    assert (
        r.status_code == 200 and r["Content-Disposition"] == f'attachment; filename="{t.slug}.tou"'
    )
    record = FederationDownload.objects.get()
    assert record.sha256 == hashlib.sha256(r.content).hexdigest() == r["X-Checksum-SHA256"]
    assert record.downloaded_by == td and not record.forced
    page = client.get(console(t, "federation/")).content.decode()
    assert record.sha256 in page and "td-real" in page


def test_problems_are_shown_and_only_download_anyway_gets_the_file(client, real_event):
    t, td = real_event
    client.force_login(td)
    page = client.get(console(t, "federation/") + "?ids=1").content.decode()
    assert "no NASPA id" in page and "download anyway" in page
    r = client.post(console(t, "federation/naspa/download/"), {"ids": "1"})
    assert r.status_code == 302 and not FederationDownload.objects.exists()
    assert "problem(s) found" in client.get(r["Location"]).content.decode()
    r = client.post(console(t, "federation/naspa/download/"), {"ids": "1", "anyway": "on"})
    assert r.status_code == 200 and b"#end_file name=" in r.content
    record = FederationDownload.objects.get()
    assert record.forced and record.problems
    assert AuditEvent.objects.filter(action="download_federation_file").count() == 1
    r = client.post(console(t, "federation/fide/download/"))
    assert "not a federation file" in client.get(r["Location"]).content.decode()
    assert FederationDownload.objects.count() == 1
