"""The director's console and the scorekeepers' desk in French, Spanish and Polish (issue 38).

One small event (six players, round 1 paired, one result in, one player checked in) is built
once for the module and rendered under each language: the main pages (home, division, results
entry, pairing, players, standings, check-in, print & export) must lose their English phrases
and show the catalogue's words, and so must a form's refusal and a page's success message.
The catalogues are compiled once for the session (``*.mo`` files are not committed).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import transaction
from django.test import Client
from django.utils import translation

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.services import checkin
from tournament.services.results import enter_line

pytestmark = pytest.mark.django_db

NAMES = ["Able, Ann", "Baker, Bo", "Cole, Cy", "Dunn, Di", "Eve, Ed", "Fox, Flo"]

# page -> English phrases it shows today (checked in English below, so none is stale)
ENGLISH = {
    "home": ["Last actions", "Press a division's key to open it.", "Featured boards"],
    "division": ["Enter results, round 1", "Last actions", "Round 1: 2 games missing"],
    "results": ["Results: A, round 1", "First player", "Double entry is"],
    "pairing": ["Change this round", "Give a bye to player", "Re-pair the unscored games"],
    "players": ["Add a player", "Withdraw from round", "Paste a list or a .t file"],
    "standings": ["After round:", ">Rank<", "Print these standings (PDF)"],
    "checkin": ["Find a player (name or number", "checked in."],
    "desk": ["Print &amp; export", "Prepare scorecards in the background", "Cards per page"],
}

# page -> language -> words the catalogue puts there instead
TRANSLATED = {
    "home": {
        "fr": ["Dernières actions", "Tables à l'affiche"],
        "es": ["Últimas acciones", "Mesas destacadas"],
        "pl": ["Ostatnie działania", "Wyróżnione stoły"],
    },
    "division": {
        "fr": ["Saisir les résultats, ronde 1", "Ronde 1 : 2 parties manquantes"],
        "es": ["Introducir resultados, ronda 1", "Ronda 1: faltan 2 partidas"],
        "pl": ["Wpisz wyniki, runda 1", "Runda 1: brak 2 partii"],
    },
    "results": {
        "fr": ["Résultats : A, ronde 1", "Premier joueur"],
        "es": ["Resultados: A, ronda 1", "Primer jugador"],
        "pl": ["Wyniki: A, runda 1", "Pierwszy gracz"],
    },
    "pairing": {
        "fr": ["Modifier cette ronde", "Donner un exempt (bye) au joueur"],
        "es": ["Cambiar esta ronda", "Dar descanso (bye) al jugador"],
        "pl": ["Zmień tę rundę", "Daj pauzę (bye) graczowi"],
    },
    "players": {
        "fr": ["Ajouter un joueur", "Retirer à partir de la ronde"],
        "es": ["Añadir un jugador", "Retirar desde la ronda"],
        "pl": ["Dodaj gracza", "Wycofaj od rundy"],
    },
    "standings": {
        "fr": ["Après la ronde :", "Imprimer ce classement (PDF)"],
        "es": ["Tras la ronda:", "Imprimir esta clasificación (PDF)"],
        "pl": ["Po rundzie:", "Drukuj tę klasyfikację (PDF)"],
    },
    "checkin": {
        "fr": ["Trouver un joueur", "<strong>1 sur 6</strong> pointés."],
        "es": ["Buscar un jugador", "<strong>1 de 6</strong> han llegado."],
        "pl": ["Znajdź gracza", "<strong>1 z 6</strong> obecnych."],
    },
    "desk": {
        "fr": ["Impression et export", "Feuilles par page"],
        "es": ["Imprimir y exportar", "Planillas por página"],
        "pl": ["Druk i eksport", "Kart na stronę"],
    },
}


@pytest.fixture(scope="module")
def event(django_db_setup, django_db_blocker) -> Iterator[dict[str, str]]:
    """One event for every language: built once in a transaction rolled back at the end."""
    with django_db_blocker.unblock(), transaction.atomic():
        t = services.create_tournament(name="Open des Langues")
        d = services.create_division(t, name="A", rounds=5)
        entries = [
            services.register_player(d, name=name, rating=1800 - 50 * k)
            for k, name in enumerate(NAMES)
        ]
        save_round_pairings(
            d,
            1,
            [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 6, board=3)],
            system="manual",
        )
        enter_line(d, 1, "1 412 389", actor=None)
        checkin.check_in(entries[0], here=True, actor=None)
        make_director(t, "polyglot-td")
        base = f"/t/{t.slug}/console/"
        yield {
            "slug": t.slug,
            "division_slug": d.slug,
            "home": f"{base}?stay=1",
            "division": f"{base}{d.slug}/",
            "results": f"{base}{d.slug}/round/1/results/",
            "pairing": f"{base}{d.slug}/round/1/pair/",
            "players": f"{base}{d.slug}/players/",
            "standings": f"{base}{d.slug}/standings/",
            "checkin": f"{base}setup/checkin/",
            "desk": f"/t/{t.slug}/desk/",
            "round_length": f"{base}setup/round-length/",
        }
        transaction.set_rollback(True)


@pytest.fixture
def director(event) -> Client:
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="polyglot-td"))
    return client


def page(client: Client, path: str, language: str) -> str:
    with translation.override(language):
        response = client.get(path)
    # round 1 is in play: its pairing page refuses to pair it again (400), with the changes
    # a round in play allows below the refusal
    expected = 400 if path.endswith("/pair/") else 200
    assert response.status_code == expected, (path, response.status_code)
    return response.content.decode()


def test_the_pages_say_these_english_phrases_today(director, event):
    """The phrases the languages must replace are the pages' own (a renamed one would make
    the translated test pass vacuously)."""
    for name, phrases in ENGLISH.items():
        html = page(director, event[name], "en")
        for phrase in phrases:
            assert phrase in html, (name, phrase)


@pytest.mark.parametrize("language", ["fr", "es", "pl"])
def test_the_console_pages_speak_the_language(director, event, language):
    for name, phrases in ENGLISH.items():
        html = page(director, event[name], language)
        for phrase in phrases:
            assert phrase not in html, (language, name, phrase)
        for words in TRANSLATED[name][language]:
            assert words in html, (language, name, words)


REFUSAL = {
    "fr": "tapez un résultat, p. ex.",
    "es": "teclee un resultado, p. ej.",
    "pl": "wpisz wynik, np.",
}
SUCCESS = {
    "fr": "Les rondes durent désormais 35 minutes.",
    "es": "Las rondas duran ahora 35 minutos.",
    "pl": "Rundy trwają teraz 35 minut.",
}


@pytest.mark.parametrize("language", ["fr", "es", "pl"])
def test_a_refusal_and_a_success_message_are_translated(director, event, language):
    with translation.override(language):
        refused = director.post(event["results"], {"line": ""})
        saved = director.post(
            event["round_length"],
            {"round_minutes": "35", "division": event["division_slug"]},
            follow=True,
        )
    assert refused.status_code == 400
    assert REFUSAL[language] in refused.content.decode()
    assert "type a result" not in refused.content.decode()
    html = saved.content.decode()
    assert SUCCESS[language] in html, html[:2000]
    assert "Rounds are now" not in html
