"""Words the domain code writes for pages (not the templates) in French, Spanish and Polish.

A club ladder's scoring rule, its presets and records, the federations' and roles' names,
a player's rating with its list, what an online-entry action did and where a desk refusal
happened are phrased in Python; each is rendered here under ``translation.override`` with
the catalogues compiled for the session (tests/i18n/conftest.py) and must come out in the
reader's language, and exactly as before in English.
"""

from __future__ import annotations

import datetime
import html
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone, translation

from tests.builders import club_with_a_night
from tournament import services
from tournament.clubs import services as club_services

pytestmark = pytest.mark.django_db

PW = "pw-long-enough-1"


def _text(response) -> str:
    """The page's words, tags dropped and spaces collapsed."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


@pytest.fixture
def club(db):
    """A club with four members, a season (margin bonus and a night to be ranked) around
    today and one closed night of one game."""
    return club_with_a_night("org-words", preset="margin-bonus")[0]


CLUB_WORDS = {
    "en": (
        "2 points a win, 1 a tie, 0 a loss; 1 more for a win by 50 or more; ties on points "
        "are broken by wins, then spread.",
        "2 a win, 1 a tie, +1 for a win by 50 or more",
        "High combined score both players' scores added",
        "Longest winning streak",
        "1 win in a row",
    ),
    "fr": (
        "2 points par victoire, 1 par nul, 0 par défaite; 1 de plus pour une victoire de 50 "
        "points ou plus; à égalité de points, départage aux victoires, puis à l'écart.",
        "2 par victoire, 1 par nul, +1 pour une victoire de 50 points ou plus",
        "Meilleur score cumulé les scores des deux joueurs additionnés",
        "Plus longue série de victoires",
        "1 victoire d'affilée",
    ),
    "es": (
        "2 puntos por victoria, 1 por empate, 0 por derrota; 1 más por una victoria por 50 o "
        "más; los empates a puntos se deshacen por victorias y después por diferencia.",
        "2 por victoria, 1 por empate, +1 por una victoria por 50 o más",
        "Mayor puntuación combinada la suma de las puntuaciones de ambos jugadores",
        "Racha de victorias más larga",
        "1 victoria seguida",
    ),
    "pl": (
        "2 pkt za wygraną, 1 za remis, 0 za przegraną; 1 więcej za wygraną różnicą 50 lub "
        "więcej; przy równej liczbie punktów decydują wygrane, potem różnica punktów.",
        "2 za wygraną, 1 za remis, +1 za wygraną różnicą 50 lub więcej",
        "Najwyższy łączny wynik suma wyników obu graczy",
        "Najdłuższa seria wygranych",
        "1 wygrana z rzędu",
    ),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_club_page_says_its_ladder_rule_preset_and_records_in_the_readers_language(club, lang):
    with translation.override(lang):
        text = _text(Client().get(f"/clubs/{club.slug}/"))
    for words in CLUB_WORDS[lang]:
        assert words in text, (lang, words)
    if lang != "en":
        for english in CLUB_WORDS["en"]:
            assert english not in text, (lang, english)


@pytest.mark.parametrize(
    ("lang", "awards"),
    [
        ("en", ("Most wins:", "High game:")),
        ("fr", ("Le plus de victoires:", "Meilleure partie:")),
        ("es", ("Más victorias:", "Partida más alta:")),
        ("pl", ("Najwięcej wygranych:", "Najwyższy wynik w partii:")),
    ],
)
def test_an_archived_seasons_awards_are_named_in_the_readers_language(club, lang, awards):
    """The awards are stored in English (the API reads them); the page names them."""
    season = club.seasons.get()
    club_services.archive_season(season, actor=User.objects.get(username="org-words"))
    with translation.override(lang):
        text = _text(Client().get(f"/clubs/{club.slug}/seasons/{season.pk}/"))
    for award in awards:
        assert award in text, (lang, award)
    if lang != "en":
        assert "Most wins:" not in text and "High game:" not in text


MODEL_WORDS = {
    "en": ("NASPA (North America)", "Thailand", "co-director", "scorekeeper (results only)"),
    "fr": ("NASPA (Amérique du Nord)", "Thaïlande", "co-directeur du tournoi", "marqueur"),
    "es": ("NASPA (Norteamérica)", "Tailandia", "codirector del torneo", "anotador"),
    "pl": ("NASPA (Ameryka Północna)", "Tajlandia", "współsędzia", "protokolant (tylko"),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_the_realms_and_staff_roles_choices_read_in_the_readers_language(lang):
    """The models' choice labels (lazy, so no migration changes) as the forms offer them."""
    from tournament.web.forms.setup import TournamentForm
    from tournament.web.forms.staff import InviteForm

    with translation.override(lang):
        shown = str(TournamentForm()["realm"]) + str(InviteForm()["role"])
    for words in MODEL_WORDS[lang]:
        assert words in html.unescape(shown), (lang, words)
    if lang != "en":
        assert "North America" not in shown and "co-director" not in shown


RATING_WORDS = {
    "en": ("2087 on NASPA-CSW", "club rating 1004 (Riverside)", "no rating on NASPA-CSW"),
    "fr": ("2087 sur NASPA-CSW", "classement du club 1004 (Riverside)", "pas de classement sur"),
    "es": ("2087 en NASPA-CSW", "rating de club 1004 (Riverside)", "sin rating en NASPA-CSW"),
    "pl": ("2087 na liście NASPA-CSW", "ranking klubowy 1004 (Riverside)", "brak rankingu"),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_rating_with_its_list_reads_in_the_readers_language(lang):
    """Registration's pick list says which list a rating is on."""
    from tournament.selectors.registry import rating_label

    with translation.override(lang):
        said = (
            rating_label(2087, "NASPA-CSW", False),
            rating_label(1004, "Riverside", True),
            rating_label(0, "NASPA-CSW", False),
        )
    for words, label in zip(RATING_WORDS[lang], said, strict=True):
        assert label.startswith(words), (lang, label)


DONE_WORDS = {
    "en": ("Quill, Quentin: approve done.", "Quill, Quentin: paid done."),
    "fr": ("Quill, Quentin : inscription approuvée.", "Quill, Quentin : paiement enregistré."),
    "es": ("Quill, Quentin: inscripción aprobada.", "Quill, Quentin: pago anotado."),
    "pl": ("Quill, Quentin: zgłoszenie zatwierdzone.", "Quill, Quentin: opłata odnotowana."),
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_an_online_entry_actions_message_reads_in_the_readers_language(settings, lang):
    """What the console's row button says it did (the command line keeps the English)."""
    from tournament.models import Player
    from tournament.services import online_entries as oe

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    t = services.create_tournament(name="Spring Open", slug="spring", published=True)
    division = services.create_division(t, name="A", rounds=3)
    director = User.objects.create_user("dora", password=PW)
    t.directors.add(director)
    now = timezone.now()
    oe.open_entries(t, now - datetime.timedelta(days=1), now + datetime.timedelta(days=7))
    oe.set_division_rule(division, actor=director)
    quill = Player.objects.create(name="Quill, Quentin", email="qq@example.org")
    online = oe.submit_entry(division, player_id=quill.pk, email="prank@example.org").online
    with translation.override(lang):
        said = (
            oe.apply_entry_action(online, "approve", actor=director),
            oe.apply_entry_action(online, "paid", actor=director),
        )
    assert said == DONE_WORDS[lang]


WHERE_WORDS = {
    "en": (
        "division A round 1",
        "division A round 1: score",
    ),
    "fr": ("division A ronde 1", "division A ronde 1 : score"),
    "es": ("división A ronda 1", "división A ronda 1: puntuación"),
    "pl": ("grupa A runda 1", "grupa A runda 1: wynik"),
}


@pytest.fixture
def paired(db):
    """Division A with round 1 paired: #1 plays #2."""
    from pairings.services.store import PlannedGame, save_round_pairings

    t = services.create_tournament(name="Desk Open", slug="desk-open", published=True)
    d = services.create_division(t, name="A", rounds=3)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2, board=1)])
    return d


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_desk_refusal_says_where_in_the_readers_language(paired, lang):
    """A result refused at the desk names its division and round in the director's language;
    the API's parameters and the command line keep the English."""
    from tournament.errors import ServiceError
    from tournament.management.base import CommandFailure

    with translation.override(lang):
        with pytest.raises(ServiceError) as unknown:
            services.record_result(paired, 1, 9, 400, 350)
        with pytest.raises(ServiceError) as bad_score:
            services.record_result(paired, 1, 1, "lots", 350)
        said = (unknown.value.message, bad_score.value.message)
        params = bad_score.value.as_dict()["params"]
        command = str(CommandFailure.from_service(unknown.value))
    where, what = WHERE_WORDS[lang]
    assert where in said[0] and what in said[1], (lang, said)
    if lang != "en":
        assert "round 1" not in said[0] + said[1]
    assert params["what"] == "division A round 1: score"  # the API's params stay English
    assert "division A round 1" in command


REGISTRATION_WORDS = {
    "en": "Cole, Cy: rating",
    "fr": "Cole, Cy : classement Elo",
    "es": "Cole, Cy: rating",
    "pl": "Cole, Cy: ranking",
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_registration_refusal_says_what_in_the_readers_language(paired, lang):
    from tournament.errors import ServiceError

    with translation.override(lang):
        with pytest.raises(ServiceError) as refused:
            services.register_player(paired, name="Cole, Cy", rating="lots")
        said = refused.value.message
    assert REGISTRATION_WORDS[lang] in said, (lang, said)
    assert refused.value.as_dict()["params"]["what"] == "Cole, Cy: rating"


DESK_WARNING = {
    "en": "WARNING: the site listens on testserver but scorecard QR codes point to",
    "fr": "ATTENTION : le site écoute sur testserver mais les codes QR",
    "es": "AVISO: el sitio escucha en testserver pero los códigos QR",
    "pl": "UWAGA: witryna nasłuchuje na testserver, ale kody QR",
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_the_desks_site_address_warning_reads_in_the_readers_language(paired, settings, lang):
    """The desk reached at another address than the laptop's loopback SITE_URL warns that
    the cards' QR codes would not open on phones (the command line keeps its English)."""
    from tests.core.conftest import make_director

    settings.SITE_URL = "http://127.0.0.1:8000"
    make_director(paired.tournament, "desk-td")
    client = Client()
    client.force_login(User.objects.get(username="desk-td"))
    with translation.override(lang):
        text = _text(client.get(f"/t/{paired.tournament.slug}/desk/"))
    assert DESK_WARNING[lang] in text, (lang, text[:400])


NEEDS_NOTE = {
    "en": "The division sets no prize places: the top 2 are assumed.",
    "fr": "La division ne fixe pas de places primées : les 2 premières sont retenues.",
    "es": "La división no fija puestos con premio: se suponen los 2 primeros.",
    "pl": "Grupa nie określa miejsc nagradzanych: przyjęto 2 pierwszych.",
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_player_cards_needs_note_reads_in_the_readers_language(paired, lang):
    """What 'what I need' assumes, on the player's card; the API keeps its English."""
    from pairings.needs import division_needs, needs_as_dict

    with translation.override(lang):
        text = _text(Client().get(f"/t/{paired.tournament.slug}/{paired.slug}/player/1/"))
    assert NEEDS_NOTE[lang] in text, (lang, text[:600])
    # the API's needs keep their English whatever the reader's language
    api = Client().get(
        f"/api/v1/tournaments/{paired.tournament.slug}/divisions/{paired.slug}/needs/?player=1",
        HTTP_ACCEPT_LANGUAGE=lang,
    )
    assert api.status_code == 200, api.content[:300]
    assert NEEDS_NOTE["en"] in api.json()["assumptions"]
    assert NEEDS_NOTE["en"] in needs_as_dict(division_needs(paired, 1))["assumptions"]


GAME_PLACE = {
    "en": "division A round 1 board 1",
    "fr": "division A ronde 1 table 1",
    "es": "división A ronda 1 mesa 1",
    "pl": "grupa A runda 1 stół 1",
}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_game_record_refusal_places_the_game_in_the_readers_language(paired, lang):
    """A GCG file for a game without a result: the refusal names its board in the reader's
    words (the API's params keep the English)."""
    from tournament.errors import ServiceError
    from tournament.services import gcg

    game = paired.round_set.get(number=1).games.get()
    with translation.override(lang):
        with pytest.raises(ServiceError) as refused:
            gcg.attach_record(game, "#player1 a A\n#player2 b B\n", actor="test")
        said = refused.value.message
    assert refused.value.code == "gcg_no_result"
    assert GAME_PLACE[lang] in said, (lang, said)
    assert refused.value.as_dict()["params"]["where"] == GAME_PLACE["en"]


BAND = {"en": "· up to 1599", "fr": "· jusqu'à 1599", "es": "· hasta 1599", "pl": "· do 1599"}


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_the_entries_pages_rating_band_reads_in_the_readers_language(paired, lang):
    from tournament.services import online_entries as oe

    now = timezone.now()
    t = paired.tournament
    oe.open_entries(t, now - datetime.timedelta(days=1), now + datetime.timedelta(days=7))
    oe.set_division_rule(paired, rating_max=1599)
    with translation.override(lang):
        text = _text(Client().get(f"/t/{t.slug}/entries/"))
    assert BAND[lang] in text, (lang, text[:800])


@pytest.mark.parametrize("lang", ["en", "fr", "es", "pl"])
def test_a_players_own_report_refusal_says_where_in_the_players_language(paired, lang):
    """A player's phone (scorecard QR link) refusing a score names the round in their words."""
    from tournament.errors import ServiceError
    from tournament.services import selfentry

    token = selfentry.issue_token(paired.entries.get(number=1), actor="test")
    with translation.override(lang):
        with pytest.raises(ServiceError) as refused:
            selfentry.report_own_result(token, "lots", 350)
        said = refused.value.message
    assert WHERE_WORDS[lang][1] in said, (lang, said)
