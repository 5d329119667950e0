"""Club nights, the venue screen and the stream's overlays in French, Spanish and Polish (#38).

Each page is rendered through its view under ``translation.override`` (as the locale mechanism
will activate a language for a request) with the catalogues compiled for the session: none of
its English phrases is left and the translations are there. Screens and overlays are the
room's: they follow the tournament's language when it has one, whatever the viewer's.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from pairings.services.store import PlannedGame, save_round_pairings
from tests.builders import club_with_a_night
from tournament import services
from tournament.models import Tournament
from tournament.services.broadcast import feature_boards

pytestmark = pytest.mark.django_db

PW = "pw-long-enough-1"
LANGS = ("fr", "es", "pl")


@pytest.fixture
def club(db):
    """A club with four members, a season around today and one closed night of one game."""
    return club_with_a_night("org-i18n", preset="two-one")


@pytest.fixture
def event(db) -> Tournament:
    """A published tournament: round 1 paired, one of its two games scored, board 1 featured."""
    t = services.create_tournament(name="Lingua Open", slug="lingua-open")
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)):
        services.register_player(d, name=name, rating=rating)
    services.register_player(d, name="Dunn, Di", rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    services.record_result(d, 1, 1, 420, 380)
    feature_boards(t, [("A", "1")], actor="cmd")
    return t


# Each page: (the English it must lose, then per language what it must say instead).
CLUB_PAGE = (
    ["Recent nights", "Club ratings", "No results yet", "Big screen", ">Members ("],
    {
        "fr": ["Soirées récentes", "Classement Elo du club", "Grand écran", "Membres (4)"],
        "es": ["Noches recientes", "Ratings del club", "Pantalla grande", "Miembros (4)"],
        "pl": ["Ostatnie wieczory", "Ranking klubowy", "Duży ekran", "Członkowie (4)"],
    },
)
LADDER = (
    [">Rank<", ">Nights<", "nights counted", "Scoring:", "current season"],
    {
        "fr": [">Rang<", ">Soirées<", "soirée comptée", "Décompte :", "saison en cours"],
        "es": [">Puesto<", ">Noches<", "noche contada", "Puntuación:", "temporada actual"],
        "pl": [">Miejsce<", ">Wieczory<", "Policzono 1 wieczór", "Punktacja:", "bieżący sezon"],
    },
)
RUN_PAGE = (
    ["Reopen the night", "Print, export, more", "A game without a draw", "Scorecards"],
    {
        "fr": ["Rouvrir la soirée", "Imprimer, exporter, plus", "Feuilles de match", "Joueurs (4)"],
        "es": ["Reabrir la noche", "Imprimir, exportar y más", "Planillas", "Jugadores (4)"],
        "pl": ["Otwórz wieczór ponownie", "Druk, eksport i więcej", "Karty wyników", "Gracze (4)"],
    },
)
SCREEN = (
    [">Board<", ">First<", "games in", "round 1"],
    {
        "fr": [">Table<", ">Premier<", "résultats rendus : 1 sur 2", "ronde 1"],
        "es": [">Mesa<", ">Primero<", "resultados entregados: 1 de 2", "ronda 1"],
        "pl": [">Stół<", ">Pierwszy<", "wpłynęło wyników: 1 z 2", "runda 1"],
    },
)
BOARD_OVERLAY = (
    ["rated 1800", "round 1 · board 1", "· overlay"],
    {
        "fr": ["classé 1800", "ronde 1 · table 1", "· incrustation"],
        "es": ["rating 1800", "ronda 1 · mesa 1", "· superposición"],
        "pl": ["ranking 1800", "runda 1 · stół 1", "· nakładka"],
    },
)
PAIRINGS_OVERLAY = (
    ["Division A, round 1", "round 1 pairings", ">Board<"],
    {
        "fr": ["Division A, ronde 1", "Appariements de la ronde 1", ">Table<"],
        "es": ["División A, ronda 1", "Emparejamientos de la ronda 1", ">Mesa<"],
        "pl": ["Grupa A, runda 1", "Kojarzenia rundy 1", ">Stół<"],
    },
)


def _check(html: str, page: tuple, lang: str) -> None:
    english, translated = page
    left = [phrase for phrase in english if phrase in html]
    assert not left, f"{lang}: English left: {left}"
    missing = [phrase for phrase in translated[lang] if phrase not in html]
    assert not missing, f"{lang}: translation missing: {missing}"


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_english_is_unchanged_without_a_language(club, event):
    """The English pages still say what they said: the phrases the others replace are there."""
    c, season, night, org = club
    client = Client()
    assert "Recent nights" in _get(client, f"/clubs/{c.slug}/")
    assert "nights counted" not in _get(client, f"/clubs/{c.slug}/seasons/{season.pk}/")
    assert "1 night counted" in _get(client, f"/clubs/{c.slug}/seasons/{season.pk}/")
    assert "1 of 2 games in" in _get(client, f"/t/{event.slug}/screen/")
    assert "rated 1800" in _get(client, f"/t/{event.slug}/broadcast/board/1/")


@pytest.mark.parametrize("lang", LANGS)
def test_club_pages_speak_the_language(club, lang):
    c, season, night, org = club
    anonymous, organiser = Client(), Client()
    organiser.force_login(org)
    with translation.override(lang):
        _check(_get(anonymous, f"/clubs/{c.slug}/"), CLUB_PAGE, lang)
        _check(_get(anonymous, f"/clubs/{c.slug}/seasons/{season.pk}/"), LADDER, lang)
        _check(_get(organiser, f"/clubs/{c.slug}/nights/{night.pk}/"), RUN_PAGE, lang)


def test_a_cached_club_page_is_one_copy_a_language(club):
    """The anonymous club page is cached whole: French must not be served to an English
    visitor (or the other way) from the one copy."""
    c, *_ = club
    client = Client()
    with translation.override("fr"):
        assert "Soirées récentes" in _get(client, f"/clubs/{c.slug}/")
    english = _get(client, f"/clubs/{c.slug}/")
    assert "Recent nights" in english and "Soirées récentes" not in english
    with translation.override("fr"):
        assert "Soirées récentes" in _get(client, f"/clubs/{c.slug}/")


@pytest.mark.parametrize("lang", LANGS)
def test_the_venue_screen_and_overlays_speak_the_language(event, lang):
    """A room's screens speak the tournament's language (not a visitor's)."""
    Tournament.objects.filter(pk=event.pk).update(language=lang)
    client = Client()
    _check(_get(client, f"/t/{event.slug}/screen/"), SCREEN, lang)
    _check(_get(client, f"/t/{event.slug}/broadcast/board/1/"), BOARD_OVERLAY, lang)
    _check(_get(client, f"/t/{event.slug}/broadcast/a/pairings/"), PAIRINGS_OVERLAY, lang)


def test_the_clock_script_gets_its_words_from_the_page(event):
    """clock.js writes "N min left" and "time" itself: it takes them from the clock's data
    attributes, which speak the page's language."""
    director = User.objects.create_user("dora-i18n", password=PW)
    event.directors.add(director)
    from tournament.services.clock import start_clock

    start_clock(event.divisions.get(), 1, actor=director)
    Tournament.objects.filter(pk=event.pk).update(language="es")
    html = _get(Client(), f"/t/{event.slug}/screen/")
    assert 'data-said-left="quedan {minutes} min"' in html
    assert 'data-said-over="tiempo"' in html
    assert "min left" not in html


def _tournament_language(monkeypatch, t: Tournament, code: str) -> None:
    """Give the tournament a language: the field when this branch has it, else the attribute
    the screens read (every instance, since each request loads the tournament anew)."""
    if any(f.name == "language" for f in Tournament._meta.get_fields()):
        Tournament.objects.filter(pk=t.pk).update(language=code)
    else:
        monkeypatch.setattr(Tournament, "language", code, raising=False)


def test_a_screen_follows_the_tournaments_language_not_the_viewers(event, monkeypatch):
    _tournament_language(monkeypatch, event, "pl")
    client = Client()
    with translation.override("fr"):  # the viewer's language: not the room's
        _check(_get(client, f"/t/{event.slug}/screen/"), SCREEN, "pl")
        _check(_get(client, f"/t/{event.slug}/broadcast/board/1/"), BOARD_OVERLAY, "pl")
    # an explicit choice on the request still wins (a director checking the Spanish screen),
    # and the page's own refreshes keep asking for it
    screen = _get(client, f"/t/{event.slug}/screen/?lang=es")
    _check(screen, SCREEN, "es")
    assert f'hx-get="/t/{event.slug}/screen/?lang=es"' in screen
    overlay = _get(client, f"/t/{event.slug}/broadcast/board/1/?lang=es")
    _check(overlay, BOARD_OVERLAY, "es")
    assert f'hx-get="/t/{event.slug}/broadcast/board/1/?lang=es"' in overlay


def _room_language(client: Client, url: str, cookie: str, accept: str) -> str:
    """The language a room's page is answered in for a laptop whose switcher chose ``cookie``
    and whose browser asks for ``accept``: its ``<html lang>``, which the answer's
    Content-Language must repeat (a cache or a screen reader believes the header)."""
    from django.conf import settings

    client.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    response = client.get(url, headers={"Accept-Language": accept})
    assert response.status_code == 200, url
    html = response.content.decode()
    said = re.search(r'<html lang="([^"]*)"', html)
    assert said and response["Content-Language"] == said.group(1), url
    assert 'class="language"' not in html, url  # a room's page offers no switcher
    return said.group(1)


def test_a_cookie_never_turns_a_screen_while_its_address_can(club, event):
    """The venue screen, an overlay and a club night's screen: the laptop's cookie and browser
    (French) change nothing, ``?lang=es`` does, and the night screen's refreshes keep asking
    for it. One rule decides (the language middleware), so the page and its headers agree."""
    c, season, night, org = club
    Tournament.objects.filter(pk__in=[event.pk, night.tournament_id]).update(language="pl")
    screens = (
        f"/t/{event.slug}/screen/",
        f"/t/{event.slug}/broadcast/board/1/",
        f"/clubs/{c.slug}/nights/{night.pk}/screen/",
    )
    client = Client()
    for url in screens:
        assert _room_language(client, url, cookie="fr", accept="fr") == "pl", url
        assert _room_language(client, url + "?lang=es", cookie="fr", accept="fr") == "es", url
    night_screen = client.get(screens[2] + "?lang=es").content.decode()
    assert f'hx-get="{screens[2]}?lang=es"' in night_screen
