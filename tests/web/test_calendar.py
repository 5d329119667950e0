"""The events calendar (issue 36, item 2): upcoming and past events, filters, the iCalendar
feeds read by a real parser, the directors' contact form and the API's list."""

from __future__ import annotations

import datetime

import icalendar
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.errors import ServiceError
from tournament.formats.ical import CalendarEntry, escape_text, fold, write_calendar
from tournament.models import AuditEvent, DivisionEntryRule, EntryWindow, Notice, Tournament

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()
DAY = datetime.timedelta(days=1)


def _event(slug: str, start, end=None, *, published=True, **fields) -> Tournament:
    t = services.create_tournament(name=slug.replace("-", " ").title(), slug=slug)
    Tournament.objects.filter(pk=t.pk).update(
        start_date=start, end_date=end, published=published, **fields
    )
    t.refresh_from_db()
    return t


def _played_out(t: Tournament, *, rounds: int = 1):
    """Two players, every round paired and scored: Able wins each game."""
    d = services.create_division(t, name="A", rounds=rounds)
    services.register_player(d, name="Able, Ann", rating=1800)
    services.register_player(d, name="Baker, Bo", rating=1700)
    for r in range(1, rounds + 1):
        save_round_pairings(d, r, [PlannedGame(1, 2)])
        services.record_result(d, r, 1, 420, 380)
    return d


@pytest.fixture(autouse=True)
def _clear_rate_counts():
    cache.clear()
    yield


@pytest.fixture
def calendar(db):
    soon = _event(
        "spring-open",
        TODAY + 10 * DAY,
        TODAY + 11 * DAY,
        venue="Library Hall",
        region="Ontario",
        country="Canada",
        lexicon="CSW24",
    )
    a = services.create_division(soon, name="Premier", rounds=12)
    b = services.create_division(soon, name="Lower", rounds=12)
    DivisionEntryRule.objects.create(
        division=a, rating_min=1600, fee_amount="60", fee_currency="CAD"
    )
    DivisionEntryRule.objects.create(
        division=b, rating_max=1599, fee_amount="40", fee_currency="CAD"
    )
    EntryWindow.objects.create(
        tournament=soon,
        opens_at=timezone.now() - datetime.timedelta(days=3),
        closes_at=timezone.now() + datetime.timedelta(days=5),
    )
    nwl = _event("texas-nwl", TODAY + 30 * DAY, TODAY + 31 * DAY, country="USA", lexicon="NWL2023")
    services.create_division(nwl, name="A", rounds=8)
    # a one-day event of today, played out this morning: finished, not upcoming
    morning = _event("morning-blitz", TODAY, TODAY, country="Canada", lexicon="CSW24")
    _played_out(morning)
    # today's event still being played: in play
    playing = _event("all-day", TODAY, TODAY, country="Canada")
    d = services.create_division(playing, name="A", rounds=3)
    services.register_player(d, name="Cole, Cy", rating=1600)
    services.register_player(d, name="Dunn, Di", rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2)])
    services.record_result(d, 1, 1, 400, 300)
    last_year = _event("old-open", TODAY - 400 * DAY, TODAY - 399 * DAY, country="Canada")
    _played_out(last_year, rounds=2)
    _event("draft-open", TODAY + 5 * DAY, published=False, country="Canada")
    user = get_user_model().objects.create_user("td", email="td@example.org", password="x")
    soon.directors.add(user)
    return {"soon": soon, "nwl": nwl, "morning": morning, "playing": playing, "old": last_year}


def _slugs(page: str) -> list[str]:
    import re

    return re.findall(r'<h2 id="event-\d+"><a href="/t/([^/]+)/">', page)


def test_upcoming_lists_unfinished_published_events_soonest_first(client, calendar):
    page = client.get("/events/").content.decode()
    assert _slugs(page) == ["all-day", "spring-open", "texas-nwl"]
    assert "morning-blitz" not in page and "draft-open" not in page and "old-open" not in page
    assert "in play" in page
    # divisions with their bands and fees, entry status, where
    assert "Premier: 12 rounds, 1600 and up, fee 60 CAD" in page
    assert "Lower: 12 rounds, up to 1599, fee 40 CAD" in page
    assert "Entries open until" in page and 'href="/t/spring-open/entries/"' in page
    assert "Library Hall, Ontario, Canada" in page
    assert "td@example.org" not in page
    assert 'href="/t/spring-open/contact/"' in page
    assert 'href="/t/texas-nwl/contact/"' not in page  # no director with an address


@pytest.mark.parametrize(
    "query,expected",
    [
        ({"country": "canada"}, ["all-day", "spring-open"]),
        ({"country": "USA"}, ["texas-nwl"]),
        ({"lexicon": "nwl2023"}, ["texas-nwl"]),
        ({"region": "ontar"}, ["spring-open"]),
        # a 1500 player: the Lower division; texas-nwl has no band (any rating)
        ({"rating": "1500", "lexicon": "CSW24"}, ["spring-open"]),
        ({"rating": "1700", "country": "Canada", "lexicon": "CSW24"}, ["spring-open"]),
        ({"country": "Narnia"}, []),
    ],
)
def test_filters(client, calendar, query, expected):
    response = client.get("/events/", query)
    assert response.status_code == 200
    assert _slugs(response.content.decode()) == expected


def test_a_band_the_event_does_not_have_filters_it_out(client, calendar):
    DivisionEntryRule.objects.filter(division__tournament=calendar["soon"]).update(
        rating_min=1600, rating_max=1800
    )
    page = client.get("/events/", {"rating": "1500", "country": "Canada"}).content.decode()
    assert "spring-open" not in _slugs(page)


@pytest.mark.parametrize(
    "query,words",
    [
        ({"rating": "high"}, "rating: &#x27;high&#x27; is not a rating"),
        ({"rating": "-5"}, "is not a rating"),
        ({"rating": "99999"}, "is not a rating"),
        ({"country": "x" * 101}, "country: at most 100 characters"),
        ({"region": "On\x00t"}, "region: control characters"),
    ],
)
def test_bad_filters_are_refused_with_the_filter_named(client, calendar, query, words):
    for url in ("/events/", "/events/past/"):
        response = client.get(url, query)
        assert response.status_code == 400
        assert words in response.content.decode()


def test_past_events_show_winners_latest_first(client, calendar):
    page = client.get("/events/past/").content.decode()
    assert _slugs(page) == ["morning-blitz", "old-open"]
    assert "finished" in page
    assert 'won by <a href="/players/' in page and "Able, Ann</a>" in page


@pytest.mark.parametrize("raw", ["0", "x", "99"])
def test_past_bad_page(client, calendar, raw):
    assert client.get("/events/past/", {"page": raw}).status_code == 400


def test_the_feed_parses_in_icalendar_with_every_dated_published_event(client, calendar):
    response = client.get("/events/calendar.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    parsed = icalendar.Calendar.from_ical(response.content)
    events = {str(e["SUMMARY"]): e for e in parsed.walk("VEVENT")}
    published = Tournament.objects.filter(published=True, start_date__isnull=False)
    assert set(events) == {t.name for t in published}
    spring = events["Spring Open"]
    assert spring.decoded("DTSTART") == TODAY + 10 * DAY
    assert spring.decoded("DTEND") == TODAY + 12 * DAY  # the day after the last
    assert str(spring["LOCATION"]) == "Library Hall, Ontario, Canada"
    assert "Division Premier: 12 rounds, 1600 and up, fee 60 CAD." in str(spring["DESCRIPTION"])
    assert str(spring["URL"]).endswith("/t/spring-open/")
    assert "Finished." in str(events["Morning Blitz"]["DESCRIPTION"])
    assert len({str(e["UID"]) for e in events.values()}) == len(events)


def test_one_events_ics(client, calendar):
    response = client.get("/t/spring-open/event.ics")
    parsed = icalendar.Calendar.from_ical(response.content)
    [event] = parsed.walk("VEVENT")
    assert str(event["SUMMARY"]) == "Spring Open"


@pytest.mark.parametrize("slug", ["draft-open", "no-such-event"])
def test_a_draft_or_unknown_event_has_no_ics_or_contact(client, calendar, slug):
    assert client.get(f"/t/{slug}/event.ics").status_code == 404
    assert client.get(f"/t/{slug}/contact/").status_code == 404
    response = client.post(
        f"/t/{slug}/contact/", {"name": "A", "email": "a@b.org", "message": "hi"}
    )
    assert response.status_code == 404
    assert not Notice.objects.exists()


def test_an_undated_event_has_no_ics(client, calendar):
    _event("someday", None)
    response = client.get("/t/someday/event.ics")
    assert response.status_code == 404 and "no dates yet" in response.content.decode()


def test_text_is_escaped_and_long_lines_folded():
    entry = CalendarEntry(
        uid="x@y",
        name="Open; Day, One\\Two " + "é" * 80,
        start=datetime.date(2026, 1, 2),
        end=None,
        stamp=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
        description="line one\nline two",
    )
    text = write_calendar([entry])
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    [parsed] = icalendar.Calendar.from_ical(text).walk("VEVENT")
    assert str(parsed["SUMMARY"]) == entry.name
    assert str(parsed["DESCRIPTION"]) == "line one\nline two"
    assert parsed.decoded("DTEND") == datetime.date(2026, 1, 3)
    assert escape_text("a,b;c") == "a\\,b\\;c"
    assert fold("x" * 80).split("\r\n") == ["x" * 75, " " + "x" * 5]


def test_contact_mails_each_director_without_showing_an_address(client, calendar):
    other = get_user_model().objects.create_user("td2", email="td2@example.org", password="x")
    calendar["soon"].directors.add(other)
    page = client.get("/t/spring-open/contact/").content.decode()
    assert "@example.org" not in page
    response = client.post(
        "/t/spring-open/contact/",
        {
            "name": "Pat Player",
            "email": "pat@example.net",
            "message": "Is there parking? [[account:1]]",
        },
    )
    assert response.status_code == 200 and "Sent." in response.content.decode()
    assert "@example.org" not in response.content.decode()
    mails = Notice.objects.filter(kind=Notice.Kind.CONTACT)
    assert sorted(m.email for m in mails) == ["td2@example.org", "td@example.org"]
    assert all("pat@example.net" in m.body and "Is there parking?" in m.body for m in mails)
    # a visitor's copy of a mail's secret placeholder is broken, never filled in
    assert all("[[account:" not in m.body for m in mails)
    assert AuditEvent.objects.filter(action="contact_directors").count() == 1


@pytest.mark.parametrize(
    "data,field_words",
    [
        ({"name": "", "email": "a@b.org", "message": "hi"}, "This field is required"),
        ({"name": "A", "email": "not-an-address", "message": "hi"}, "valid email"),
        ({"name": "A", "email": "a@b.org", "message": ""}, "This field is required"),
        ({"name": "A", "email": "a@b.org", "message": "x" * 4001}, "at most 4000"),
        ({"name": "A\u202e", "email": "a@b.org", "message": "hi"}, "your name"),
    ],
)
def test_contact_bad_input_is_refused_and_sends_nothing(client, calendar, data, field_words):
    response = client.post("/t/spring-open/contact/", data)
    assert response.status_code == 400
    assert field_words in response.content.decode()
    assert not Notice.objects.exists()


def test_contact_with_no_director_address_is_refused(client, calendar):
    page = client.get("/t/texas-nwl/contact/").content.decode()
    assert "no e-mail address to write to" in page
    response = client.post(
        "/t/texas-nwl/contact/", {"name": "A", "email": "a@b.org", "message": "hi"}
    )
    assert response.status_code == 400
    assert "directors have no e-mail address" in response.content.decode()
    assert not Notice.objects.exists()


def test_contact_is_rate_limited_per_address(client, calendar, settings):
    settings.CONTACT_RATE = "2/hour"
    data = {"name": "A", "email": "a@b.org", "message": "hi"}
    assert client.post("/t/spring-open/contact/", data).status_code == 200
    assert client.post("/t/spring-open/contact/", data).status_code == 200
    response = client.post("/t/spring-open/contact/", data)
    assert response.status_code == 429 and "Too many messages" in response.content.decode()
    assert int(response["Retry-After"]) > 0
    assert Notice.objects.count() == 2


def test_the_api_lists_events(client, calendar):
    data = client.get("/api/v1/events/").json()
    assert [e["slug"] for e in data] == ["all-day", "spring-open", "texas-nwl"]
    spring = data[1]
    assert spring["country"] == "Canada" and spring["lexicon"] == "CSW24"
    assert spring["divisions"][0]["band"] == "1600 and up"
    assert spring["entries_open"] is True and spring["contactable"] is True
    assert "td@example.org" not in str(data)
    past = client.get("/api/v1/events/", {"when": "past"}).json()
    assert [e["slug"] for e in past] == ["morning-blitz", "old-open"]
    assert past[0]["divisions"][0]["winner"] == "Able, Ann"
    assert past[0]["status"] == "finished"


@pytest.mark.parametrize("query,field", [({"when": "soon"}, "when"), ({"rating": "x"}, "rating")])
def test_the_api_refuses_bad_filters(client, calendar, query, field):
    response = client.get("/api/v1/events/", query)
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["code"] == "calendar_bad_filter" and error["field"] == field


def test_settings_take_country_region_and_lexicon(calendar):
    t = calendar["nwl"]
    services.update_tournament(t, actor=None, country=" USA ", region="Texas", lexicon="nwl2023")
    t.refresh_from_db()
    assert (t.country, t.region, t.lexicon) == ("USA", "Texas", "NWL2023")
    with pytest.raises(ServiceError) as exc:
        services.update_tournament(t, actor=None, lexicon="X" * 21)
    assert exc.value.field == "lexicon"


def test_the_tournament_page_links_its_ics_and_contact(client, calendar):
    page = client.get("/t/spring-open/").content.decode()
    assert 'href="/t/spring-open/event.ics"' in page and 'href="/t/spring-open/contact/"' in page


def test_the_console_form_sets_country_region_and_lexicon(client, calendar):
    from tests.console.test_setup import NEW, new_form

    user = get_user_model().objects.create_user("maker", password="pw-long-enough-1")
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    client.force_login(user)
    data = new_form(country="Canada", region="Quebec", lexicon="csw24")
    assert client.post(NEW, data).status_code == 302
    t = Tournament.objects.get(name="Spring Open", region="Quebec")
    assert (t.country, t.lexicon) == ("Canada", "CSW24")


# --- what if (issue 36, item 5) -------------------------------------------------------------


@pytest.fixture
def rated(db):
    """Four rated players, round 1 of 3 scored, on NASPA's 2008 system."""
    t = _event("rated-open", TODAY, TODAY + DAY)
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (
        ("Able, Ann", 1800),
        ("Baker, Bo", 1700),
        ("Cole, Cy", 1600),
        ("Dunn, Di", 1500),
    ):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    return t, d


def _answer(page: str) -> tuple[int, int]:
    import re

    m = re.search(r"would be <strong>(\d+)</strong> \(now estimated (\d+)\)", page)
    assert m, page[-2000:]
    return int(m.group(1)), int(m.group(2))


def test_what_if_wins_raise_and_losses_lower_the_estimate(client, rated):
    from ratings.division import rating_estimates

    t, d = rated
    url = f"/t/{t.slug}/{d.slug}/player/4/what-if/"
    assert 'id="what-if-link"' in client.get(f"/t/{t.slug}/{d.slug}/player/4/").content.decode()
    wins, now = _answer(client.get(url, {"spread": ["+100", "+100"]}).content.decode())
    assert now == rating_estimates(d, 1)[4]  # the live estimate the standings show
    losses, now2 = _answer(
        client.get(url, {"spread": ["-100", "-100"], "opponent": ["1400", ""]}).content.decode()
    )
    assert now2 == now and losses < now < wins
    # against stronger opponents a win is worth more
    strong, _ = _answer(
        client.get(url, {"spread": ["+100"], "opponent": ["2000"]}).content.decode()
    )
    weak, _ = _answer(client.get(url, {"spread": ["+100"], "opponent": ["1000"]}).content.decode())
    assert strong > weak


@pytest.mark.parametrize(
    "query,words",
    [
        ({"spread": ["lots"]}, "is not a number like +100"),
        ({"spread": ["+100"], "opponent": ["strong"]}, "opponent rating"),
        ({"spread": ["+5000"]}, "a spread is at most 1000"),
        ({"spread": ["+100"], "opponent": ["9999"]}, "a rating is 0 to 3000"),
        ({"spread": ["+1"] * 31}, "at most 30 games"),
    ],
)
def test_what_if_bad_input_is_refused(client, rated, query, words):
    t, d = rated
    response = client.get(f"/t/{t.slug}/{d.slug}/player/4/what-if/", query)
    assert response.status_code == 400
    assert words in response.content.decode()


@pytest.mark.parametrize(
    "path",
    [
        "draft-open/a/player/1",
        "rated-open/zz/player/1",
        "rated-open/a/player/99",
        "rated-open/a/player/x",
    ],
)
def test_what_if_of_an_unknown_or_draft_event_division_or_player_is_404(
    client, rated, calendar, path
):
    assert client.get(f"/t/{path}/what-if/").status_code == 404
