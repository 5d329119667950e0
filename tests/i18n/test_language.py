"""How a request's language is chosen (tournament/web/language.py), and that no cache answers
one language's visitor with another language's page.

The order: the visitor's choice (the switcher's cookie) > the browser's Accept-Language (only
languages Gibson speaks) > the tournament's own language > English. The venue screen follows
the tournament's language whatever the laptop's browser says; the API follows Accept-Language
only. ``<html lang>`` and ``Content-Language`` say which was chosen, so these tests need no
compiled catalogue.
"""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.urls import reverse

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import cache as caching
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Tournament

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


@pytest.fixture(autouse=True)
def _fresh_cache():
    from django.core.cache import cache

    caching.reset_failures()
    cache.clear()
    yield
    caching.reset_failures()


@pytest.fixture
def event():
    """A published Spanish tournament: one division, round 1 scored, round 2 paired."""
    t = services.create_tournament(name="Abierto", slug="abierto", language="es")
    d = services.create_division(t, name="A", rounds=3)
    for name in ("Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 3)])
    return t, d


def lang_of(response) -> str:
    """The language a page says it is in (``<html lang>``), checked against Content-Language."""
    found = re.search(r'<html lang="([^"]*)"', response.content.decode())
    assert found, "no <html lang> on the page"
    assert response["Content-Language"] == found.group(1)
    return found.group(1)


def get(client, url: str, accept: str | None = None, cookie: str | None = None):
    client.cookies.clear()
    if cookie is not None:
        client.cookies[COOKIE] = cookie
    headers = {"Accept-Language": accept} if accept is not None else {}
    return client.get(url, headers=headers)


# --- the order ---------------------------------------------------------------------------------


def test_cookie_beats_accept_language_beats_the_tournament_beats_english(client, event):
    t, d = event
    page = reverse("public:standings", args=[t.slug, d.slug])
    assert lang_of(get(client, page, accept="fr-FR,fr;q=0.9", cookie="pl")) == "pl"
    assert lang_of(get(client, page, accept="fr-FR,fr;q=0.9")) == "fr"
    assert lang_of(get(client, page)) == "es"  # the tournament's own
    assert lang_of(get(client, "/")) == "en"  # no tournament: the site's language
    # quality decides, as in Django: Polish preferred to French
    assert lang_of(get(client, page, accept="fr;q=0.5,pl;q=0.8")) == "pl"


def test_an_unsupported_browser_language_falls_to_the_tournaments(client, event):
    t, d = event
    page = reverse("public:standings", args=[t.slug, d.slug])
    assert lang_of(get(client, page, accept="de-DE,de;q=0.9")) == "es"
    # ... and so does a cookie naming a language Gibson does not speak
    assert lang_of(get(client, page, accept="de", cookie="xx")) == "es"
    assert lang_of(get(client, "/", accept="de-DE")) == "en"


def test_the_switcher_is_on_every_page_and_remembers_the_choice(client, event):
    t, d = event
    page = reverse("public:standings", args=[t.slug, d.slug])
    body = get(client, page, accept="en").content.decode()
    form = re.search(r'<form class="language" method="post" action="([^"]+)">', body)
    assert form and form.group(1) == reverse("set_language")
    assert '<label for="language-choice">' in body
    # each language named in its own language, marked as such for screen readers
    assert '<option value="fr" lang="fr">Français</option>' in body
    assert '<option value="en" lang="en" selected>English</option>' in body
    # no CSRF token needed: the form sits on pages cached for everyone
    # the page's own address is not in it (a self-entry link's token would be): the view
    # goes back to the page the browser came from
    assert 'name="next"' not in body
    client.cookies.clear()
    answer = client.post(
        reverse("set_language"),
        {"language": "fr"},
        headers={"Accept-Language": "en", "Referer": f"http://testserver{page}"},
    )
    assert answer.status_code == 302 and answer["Location"] == f"http://testserver{page}"
    cookie = answer.cookies[COOKIE]
    assert cookie.value == "fr" and int(cookie["max-age"]) >= 300 * 24 * 3600
    # remembered on the next pages, whatever the browser says
    for url in (page, reverse("public:tournament", args=[t.slug]), "/"):
        assert lang_of(client.get(url, headers={"Accept-Language": "en"})) == "fr"


def test_the_venue_screen_follows_the_tournament_not_the_laptop(client, event):
    t, _ = event
    screen = reverse("public:screen", args=[t.slug])
    response = get(client, screen, accept="fr", cookie="pl")
    assert lang_of(response) == "es"
    assert 'class="language"' not in response.content.decode()  # no switcher for a room
    # the broadcast overlays too (their own base template, no switcher)
    overlay = get(client, f"/t/{t.slug}/broadcast/announcement/", accept="fr", cookie="pl")
    assert overlay.status_code == 200 and lang_of(overlay) == "es"
    # ... but the live strip the visitors' own pages fetch follows the visitor
    strip = get(client, reverse("public:screen_live", args=[t.slug]), accept="fr")
    assert strip.status_code == 200 and strip["Content-Language"] == "fr"


# --- caches ------------------------------------------------------------------------------------


def test_a_cached_page_is_never_served_in_another_language(client, event):
    t, d = event
    for name, args in (
        ("public:standings", [t.slug, d.slug]),
        ("public:tournament", [t.slug]),
        ("public:round", [t.slug, d.slug, 1]),
    ):
        page = reverse(name, args=args)
        french = get(client, page, accept="fr")
        english = get(client, page, accept="en")
        assert (lang_of(french), lang_of(english)) == ("fr", "en"), name
        assert french["ETag"] != english["ETag"]
        # now both are cached: each visitor still gets their own
        assert lang_of(get(client, page, accept="en")) == "en"
        assert lang_of(get(client, page, accept="fr")) == "fr"
        assert lang_of(get(client, page, cookie="fr", accept="en")) == "fr"
        # an English copy's ETag is no "not modified" for a French visitor
        client.cookies.clear()
        again = client.get(
            page, headers={"Accept-Language": "fr", "If-None-Match": english["ETag"]}
        )
        assert again.status_code == 200 and lang_of(again) == "fr"
        assert "Accept-Language" in again["Vary"] and "Cookie" in again["Vary"]


def test_a_not_modified_answer_varies_as_its_page_does(client, event):
    """A phone revalidating its French copy gets a 304: it must name the same Vary as the 200
    (HTTP says so), or a shared cache that stored the 304's headers would match the French
    copy to an English visitor. tourney.js, the same in every language, still varies on none."""
    t, d = event
    for page in (reverse("public:standings", args=[t.slug, d.slug]), "/ratings/"):
        french = get(client, page, accept="fr")
        assert french.status_code == 200, page
        vary = {v.strip() for v in french["Vary"].split(",")}
        assert {"Accept-Language", "Cookie"} <= vary, page
        headers = {"Accept-Language": "fr", "If-None-Match": french["ETag"]}
        again = client.get(page, headers=headers)
        assert again.status_code == 304, page
        assert {v.strip() for v in again.get("Vary", "").split(",")} == vary, page
    feed = reverse("public:tourney_js", args=[t.slug])
    whole = get(client, feed, accept="fr")
    not_modified = client.get(feed, headers={"If-None-Match": whole["ETag"]})
    assert not_modified.status_code == 304
    assert "Accept-Language" not in not_modified.get("Vary", "")


def test_site_wide_and_club_pages_are_kept_per_language(client, event):
    t, d = event
    player = d.entries.first().player_id
    for page in ("/ratings/", f"/players/{player}/", "/clubs/"):
        french = get(client, page, accept="fr")
        english = get(client, page, accept="en")
        assert french.status_code == english.status_code == 200, page
        assert (lang_of(french), lang_of(english)) == ("fr", "en"), page
        assert lang_of(get(client, page, accept="fr")) == "fr"


def test_english_pages_keep_their_keys_and_the_feed_one_copy_for_all(client, event, rf):
    """English keys are those of before (caches survive the upgrade); tourney.js and the API's
    reads are the same in every language: one ETag, and no Vary they did not have."""
    t, d = event
    version = caching.tournament_version(t.slug)
    page = reverse("public:standings", args=[t.slug, d.slug])
    english = get(client, page, accept="en")
    assert (
        english["ETag"] == f'"{caching._page_key(version, rf.get(page), "standings", language="")}"'
    )
    feed = reverse("public:tourney_js", args=[t.slug])
    french_feed, english_feed = get(client, feed, accept="fr"), get(client, feed, accept="en")
    assert french_feed["ETag"] == english_feed["ETag"]
    assert french_feed.content == english_feed.content
    api = f"/api/v1/tournaments/{t.slug}/"
    for response in (french_feed, get(client, api, accept="fr")):
        assert response.status_code == 200
        assert "Accept-Language" not in response.get("Vary", "")
        assert "Content-Language" not in response


# --- the API -----------------------------------------------------------------------------------


def test_api_messages_follow_accept_language_and_codes_stay(client, event):
    """A refused filter value: the code and field stay, the message (here Django's own words
    for a bad date, which its catalogues translate) follows Accept-Language, not the cookie."""
    from tournament.clubs.models import Club

    Club.objects.create(name="Riverside", slug="riverside")
    url = "/api/v1/clubs/riverside/nights/?after=someday"
    english = get(client, url, accept="en").json()["errors"][0]
    french = get(client, url, accept="fr-FR,fr;q=0.9").json()["errors"][0]
    assert english["code"] == french["code"] == "wrong_type"
    assert english["field"] == french["field"] == "after"
    assert "Enter a valid date" in english["message"]
    assert "Saisissez une date valide" in french["message"]
    # the cookie is a browser's choice for pages: the API heeds the header only
    by_cookie = get(client, url, cookie="fr").json()["errors"][0]
    assert by_cookie["message"] == english["message"]


# --- the tournament's language: one door -------------------------------------------------------


def _settings(t: Tournament, **over: str) -> dict[str, str]:
    data = {
        "name": t.name,
        "realm": t.realm,
        "bye_spread": str(t.bye_spread),
        "forfeit_spread": str(t.forfeit_spread),
        "gibson_spread": str(t.gibson_spread),
        "late_entry": t.late_entry,
        "paper": t.paper,
        "gibson": "on",
    }
    data.update(over)
    return data


def test_a_director_sets_the_language_on_the_setup_page_audited(client, event):
    t, _ = event
    client.force_login(make_director(t, "lang-td"))
    url = reverse("console:setup", args=[t.slug])
    assert 'name="language"' in client.get(url).content.decode()
    response = client.post(url, _settings(t, language="pl"))
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.language == "pl"
    [event_row] = AuditEvent.objects.filter(action="update_tournament")
    assert (event_row.before, event_row.after) == ({"language": "es"}, {"language": "pl"})
    # visitors with no choice of their own now read Polish
    client.logout()
    assert lang_of(get(client, reverse("public:tournament", args=[t.slug]))) == "pl"
    # a form without the field keeps the language; an unknown one is refused at its field
    client.force_login(make_director(t, "lang-td2"))
    assert client.post(url, _settings(t)).status_code == 302
    t.refresh_from_db()
    assert t.language == "pl"
    assert client.post(url, _settings(t, language="xx")).status_code == 400
    t.refresh_from_db()
    assert t.language == "pl"


def test_only_the_tournaments_directors_change_its_language(client, event):
    t, _ = event
    other = services.create_tournament(name="Elsewhere", slug="elsewhere")
    url = reverse("console:setup", args=[t.slug])
    before = AuditEvent.objects.count()
    # anonymous, a director of another tournament, a scorekeeper of this one
    assert client.post(url, _settings(t, language="fr")).status_code in (302, 403)
    client.force_login(make_director(other, "other-td"))
    refused = client.post(url, _settings(t, language="fr"))
    assert refused.status_code == 403
    # the console of a Spanish tournament refuses in Spanish to a visitor who chose nothing
    assert "solo los directores de Abierto pueden hacer esto" in refused.content.decode()
    keeper = make_director(other, "keeper")
    t.scorekeepers.add(keeper)
    client.force_login(keeper)
    assert client.post(url, _settings(t, language="fr")).status_code in (403, 404)
    t.refresh_from_db()
    assert t.language == "es" and AuditEvent.objects.count() == before
    # the service itself refuses them too (the one door every interface goes through)
    with pytest.raises(ServiceError):
        services.update_tournament(t, actor=keeper, language="fr")
    with pytest.raises(ServiceError) as refused:
        services.update_tournament(t, actor=make_director(t, "td3"), language="de")
    assert refused.value.code == "setup_choice" and refused.value.field == "language"
    t.refresh_from_db()
    assert t.language == "es"


# --- the shared pieces in each language --------------------------------------------------------


def test_the_pages_shared_pieces_read_in_the_chosen_language(client, event):
    t, d = event
    page = reverse("public:standings", args=[t.slug, d.slug])
    french = get(client, page, accept="fr").content.decode()
    assert "Aller au contenu" in french and '<label for="language-choice">Langue</label>' in french
    assert "Changer de langue" in french
    english = get(client, page, accept="en").content.decode()
    assert "Skip to content" in english and "Change language" in english
    missing = get(client, "/no/such/page/", accept="pl")
    assert missing.status_code == 404 and "Nie znaleziono" in missing.content.decode()


def test_a_refusal_before_the_middleware_speaks_the_visitors_language(rf, settings):
    """The size limit answers before the language middleware runs: it reads the visitor's
    choice or browser itself (the API: Accept-Language only)."""
    from tournament.web.sizes import RequestSizeMiddleware

    limit = RequestSizeMiddleware(lambda request: None)
    big = str(settings.MAX_UPLOAD_MB * 1024 * 1024 * 2)
    page = limit(rf.post("/console/new/upload/", CONTENT_LENGTH=big, HTTP_ACCEPT_LANGUAGE="fr"))
    assert page.status_code == 413 and "rien n'a été lu" in page.content.decode()
    english = limit(rf.post("/console/new/upload/", CONTENT_LENGTH=big))
    assert "nothing was read" in english.content.decode()
    api = limit(rf.post("/api/v1/x/", CONTENT_LENGTH=big, HTTP_ACCEPT_LANGUAGE="es"))
    entry = json.loads(api.content)["errors"][0]
    assert entry["code"] == "upload_too_large" and "no se ha leído nada" in entry["message"]
