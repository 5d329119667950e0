"""The players' pages in French, Spanish and Polish (issue "In the players' own language").

One published tournament (start date in November, entries open, round 1 scored, round 2
paired, self-entry links printed; division B open for entries) is built once for the module
and read under each language: the English phrases of each page are gone, their translations
are there, and a month name (and a weekday) in a date comes out in the language.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import Entry, Player, Tournament
from tournament.services import online_entries as oe
from tournament.services.selfentry import ensure_tokens

LANGUAGES = ["fr", "es", "pl"]

# page -> (English phrases that must be gone, {language: phrases that must be there})
EXPECTED: dict[str, tuple[list[str], dict[str, list[str]]]] = {
    "tournament": (
        ["Scored through", "Round 2 pairings", "Contact the directors"],
        {
            "fr": ["Résultats jusqu'à", "Appariements de la ronde 2", "novembre"],
            "es": ["Resultados hasta", "Emparejamientos de la ronda 2", "noviembre"],
            "pl": ["Wyniki do", "Kojarzenia rundy 2", "listopada"],
        },
    ),
    "round": (
        ["Find my name", "round 2 pairings", "Cross table"],
        {
            "fr": ["Trouver mon nom", "appariements de la ronde 2", "Tableau croisé"],
            "es": ["Buscar mi nombre", "emparejamientos de la ronda 2", "Tabla cruzada"],
            "pl": ["Znajdź moje nazwisko", "kojarzenia rundy 2", "Tabela krzyżowa"],
        },
    ),
    "standings": (
        ["After round:", "standings after round 1", "Spread"],
        {
            "fr": ["Après la ronde :", "classement après la ronde 1", "Écart"],
            "es": ["Tras la ronda:", "clasificación tras la ronda 1", "Diferencia"],
            "pl": ["Po rundzie:", "klasyfikacja po rundzie 1", "Różnica"],
        },
    ),
    "in_play": (
        ["after round 1; round 2: 0 of 2 games in", "Pairing quality"],
        {
            "fr": ["après la ronde 1 ; ronde 2 : 0 parties sur 2 saisies"],
            "es": ["tras la ronda 1; ronda 2: 0 de 2 partidas con resultado"],
            "pl": ["po rundzie 1; runda 2: wyniki 0 z 2 partii"],
        },
    ),
    "quality": (
        ["Win gaps", "The checker finds"],
        {
            "fr": ["Écarts de victoires", "Qualité des appariements, ronde 1"],
            "es": ["Diferencias de victorias", "Calidad de los emparejamientos, ronda 1"],
            "pl": ["Różnice wygranych", "Jakość kojarzeń, runda 1"],
        },
    ),
    "crosstable": (
        ["cross table", "No players yet."],
        {
            "fr": ["tableau croisé", '<span class="W">V+40</span>'],
            "es": ["tabla cruzada", '<span class="W">V+40</span>'],
            "pl": ["tabela krzyżowa", '<span class="W">W+40</span>'],
        },
    ),
    "profile": (
        ["Rating history", "Head-to-head"],
        {
            "fr": ["Historique du classement", "Face-à-face"],
            "es": ["Historial de rating", "Cara a cara"],
            "pl": ["Historia rankingu", "Bilans bezpośredni"],
        },
    ),
    "what_if": (
        ["Work it out", "Opponent's rating"],
        {
            "fr": ["Calculer", "Classement de l'adversaire"],
            "es": ["Calcular", "Rating del rival"],
            "pl": ["Oblicz", "Ranking przeciwnika"],
        },
    ),
    "player": (
        ["Starts:Replies", "to play", "Opponent"],
        {
            "fr": ["Premier:Second", "à jouer", "Adversaire"],
            "es": ["Primero:Segundo", "por jugar", "Rival"],
            "pl": ["Pierwszy:Drugi", "do rozegrania", "Przeciwnik"],
        },
    ),
    "selfentry": (
        ["Your games", "Game records", "Report the result"],
        {
            "fr": ["Vos parties", "Enregistrements de parties", "Indiquer le résultat"],
            "es": ["Tus partidas", "Registros de partidas", "Comunicar el resultado"],
            "pl": ["Twoje partie", "Zapisy partii", "Zgłoś wynik"],
        },
    ),
    "entries": (
        ["Entries are open until", "Find yourself in the player registry", "Waiting list"],
        {
            "fr": ["Les inscriptions sont ouvertes jusqu'au", "registre des joueurs"],
            "es": ["Las inscripciones están abiertas hasta", "registro de jugadores"],
            "pl": ["Zgłoszenia są otwarte do", "rejestrze graczy"],
        },
    ),
    "sent": (
        ["Check your e-mail", "We mail a link", "Send the link again"],
        {
            "fr": ["Consultez vos e-mails", "Renvoyer le lien"],
            "es": ["Revisa tu correo", "Enviar el enlace de nuevo"],
            "pl": ["Sprawdź pocztę", "Wyślij link ponownie"],
        },
    ),
    "calendar": (
        ["Events calendar", "add to calendar", "3 rounds"],
        {
            "fr": ["Calendrier des tournois", "ajouter au calendrier", "3 rondes", "sam 2031-"],
            "es": ["Calendario de torneos", "añadir al calendario", "3 rondas", "sáb 2031-11-15"],
            "pl": ["Kalendarz turniejów", "dodaj do kalendarza", "3 rundy", "So 2031-11-15"],
        },
    ),
    "search": (
        ["<h1>Find a player", "Rating lists"],
        {
            "fr": ["<h1>Trouver un joueur", "Listes de classement"],
            "es": ["<h1>Buscar un jugador", "Listas de rating"],
            "pl": ["<h1>Znajdź gracza", "Listy rankingowe"],
        },
    ),
}


NOT_PAIRED = {
    "fr": "la ronde 3 n&#x27;est pas encore appariée",
    "es": "la ronda 3 aún no está emparejada",
    "pl": "runda 3 nie jest jeszcze skojarzona",
}


@pytest.fixture(scope="module")
def shared(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, str]]:
    """One tournament for every language: its pages' addresses. Built outside the tests'
    transactions (each language's test reads it), removed at the end of the module."""
    with django_db_blocker.unblock():
        t = services.create_tournament(
            name="Lingua Open",
            slug="lingua-open",
            published=True,
            start_date=datetime.date(2031, 11, 15),
        )
        d = services.create_division(t, name="A", rounds=3)
        for name, rating in (("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)):
            services.register_player(d, name=name, rating=rating)
        services.register_player(d, name="Dunn, Di", rating=1500)
        save_round_pairings(d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
        services.record_result(d, 1, 1, 420, 380)
        services.record_result(d, 1, 3, 350, 410)
        save_round_pairings(d, 2, [PlannedGame(1, 4, board=1), PlannedGame(2, 3, board=2)])
        ensure_tokens(d, "test")
        now = timezone.now()
        oe.open_entries(t, now - datetime.timedelta(days=1), now + datetime.timedelta(days=7))
        oe.set_division_rule(d)
        oe.set_division_rule(services.create_division(t, name="B", rounds=3))  # not started
        token = Entry.objects.get(division=d, number=1).entry_token
        players = list(Entry.objects.filter(division=d).values_list("player_id", flat=True))
    yield {
        "tournament": reverse("public:tournament", args=[t.slug]),
        "round": reverse("public:round", args=[t.slug, d.slug, 2]),
        "standings": reverse("public:standings", args=[t.slug, d.slug]) + "?after=1",
        "in_play": reverse("public:standings", args=[t.slug, d.slug]),
        "quality": reverse("quality:round_quality", args=[t.slug, d.slug, 1]),
        "crosstable": reverse("public:crosstable", args=[t.slug, d.slug]),
        "profile": reverse("players:profile", args=[players[0]]),
        "what_if": reverse("event:what_if", args=[t.slug, d.slug, 1]),
        "player": reverse("public:player", args=[t.slug, d.slug, 1]),
        "selfentry": reverse("selfentry:entry", args=[token]),
        "entries": reverse("public:entries", args=[t.slug]),
        "calendar": reverse("calendar:events"),
        "search": reverse("players:search") + "?q=Able",
    }
    with django_db_blocker.unblock():
        Tournament.objects.filter(slug="lingua-open").delete()
        Player.objects.filter(pk__in=players).delete()


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def _page(client: Client, language: str, url: str, data: dict | None = None) -> str:
    """The page as a reader of ``language`` gets it (the header too, for a locale middleware)."""
    with translation.override(language):
        if data is None:
            response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        else:
            response = client.post(url, data, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def _check(name: str, language: str, html: str) -> None:
    english, translated = EXPECTED[name]
    for phrase in english:
        assert phrase not in html, f"{name} ({language}) still says {phrase!r}"
    for phrase in translated[language]:
        assert phrase in html, f"{name} ({language}) lacks {phrase!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_players_pages_speak_the_language(language: str, shared: dict[str, str], db: None) -> None:
    client = Client()
    for name, url in shared.items():
        _check(name, language, _page(client, language, url))
    # the online entry form's answer: the "sent" page of an anonymous entry
    sent = _page(
        client,
        language,
        shared["entries"],
        {"division": "b", "name": "Adams, Ada", "email": "ada@example.org"},
    )
    _check("sent", language, sent)
    # a refusal the public pages give (round 3 is not paired yet) reads in the language too
    with translation.override(language):
        refused = client.get(shared["round"].replace("/2/", "/3/"), HTTP_ACCEPT_LANGUAGE=language)
    assert refused.status_code == 404
    assert "is not paired yet" not in refused.content.decode()
    assert NOT_PAIRED[language] in refused.content.decode()


def test_english_is_unchanged(shared: dict[str, str], db: None) -> None:
    """With the catalogues compiled, English readers still read the English words."""
    client = Client()
    for name in ("tournament", "round", "standings", "player", "selfentry", "calendar"):
        html = _page(client, "en", shared[name])
        assert EXPECTED[name][0][0] in html, name
    assert "Nov. 15, 2031" in _page(client, "en", shared["tournament"])


def test_cached_pages_keep_each_language_apart(shared: dict[str, str], db: None) -> None:
    """A public page is cached whole (and its standings rows apart): a French reader's copy is
    never served to the next English reader of the same version, nor the other way round."""
    client = Client()
    french = _page(client, "fr", shared["standings"])
    english = _page(client, "en", shared["standings"])
    french_again = _page(client, "fr", shared["standings"])
    assert "Après la ronde :" in french and "Après la ronde :" in french_again
    assert "After round:" in english and "Après la ronde :" not in english
    assert "sans classement" not in english


def test_game_viewer_script_speaks_the_language() -> None:
    """The words the game viewer's script says as it steps through the turns come with the
    page, translated (the script itself only fills in the turn numbers)."""
    from tournament.web.gcg import _viewer_words, describe

    with translation.override("pl"):
        words = _viewer_words()
    assert words["turn"] == "Ruch {at} z {last}:" and words["empty"] == "Pusta plansza"
    with translation.override("es"):
        assert describe(_Turn("pass")) == "pasó"
        assert describe(_Turn("exchange", "3")) == "cambió 3 fichas"


class _Turn:
    """The fields of a GCG turn that ``describe`` reads."""

    def __init__(self, kind: str, exchanged: str = "") -> None:
        self.kind, self.exchanged = kind, exchanged
