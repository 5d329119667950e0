"""Refusals in the reader's language: every code's message has a French, Spanish and Polish
text that takes the same parameters as the English one, and a refusal is worded in the
language active when it is read (the command line and the manual stay English).

The catalogues are compiled once for the session (``*.mo`` files are built by the install,
never committed), so a test sees the ``.po`` files as they are in the checkout.
"""

from __future__ import annotations

import re
import string

import pytest
from django.utils import translation
from django.utils.functional import Promise

from pairings.services.store import PlannedGame, save_round_pairings
from tests.conftest import REPO
from tournament import services
from tournament.errors import CODES, ServiceError
from tournament.management.base import CommandFailure, error_payload
from tournament.manual import refusal_codes_page
from tournament.web.console.pairing import WORDING
from tournament.web.desk import DESK_WORDING

LANGUAGES = ("fr", "es", "pl")


def fields(template: str) -> set[str]:
    """The parameter names a template uses, with their conversions ("{value!r}" -> "value!r")."""
    return {
        name + (f"!{conversion}" if conversion else "")
        for _, name, _, conversion in string.Formatter().parse(template)
        if name is not None
    }


def dummy_params(template: str) -> dict[str, str]:
    names = {f.split("!")[0].split(".")[0].split("[")[0] for f in fields(template)}
    return {name: f"<{name}>" for name in names}


def only_placeholders(template: str) -> bool:
    """A template that is only the caller's words ("{reason}"): nothing to translate."""
    return not re.search(r"[^\W\d_]", re.sub(r"\{[^}]*\}", "", template))


TABLES = {"codes": CODES, "desk": DESK_WORDING, "console pairing": WORDING}
TEXTS = [(table, code) for table, texts in TABLES.items() for code in sorted(texts)]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("table", "code"), TEXTS)
def test_every_refusal_has_a_translation_with_the_same_parameters(language, table, code):
    text = TABLES[table][code]
    with translation.override("en"):
        english = str(text)
    if only_placeholders(english):
        assert not isinstance(text, Promise)  # left in English: it is only the caller's words
        return
    assert isinstance(text, Promise), f"{code}: not marked for translation"
    with translation.override(language):
        translated = str(text)
    assert translated != english, f"{code}: no {language} text"
    # the same {names} with the same conversions ({value!r}), so any caller's params fill it
    assert fields(translated) == fields(english), (code, translated)
    params = dummy_params(english) | {"message": "<message>"}
    filled = translated.format(**params)
    assert "{" not in filled.replace("{}", "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_service_refusal_reads_in_the_active_language(language, db):
    """A score out of range, raised by the results service: its words follow the language."""
    tournament = services.create_tournament(name="Venue", actor="test")
    division = services.create_division(tournament, name="A", rounds=3, actor="test")
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(division, name=name, rating=1500, actor="test")
    save_round_pairings(division, 1, [PlannedGame(1, 2, board=1)], actor="test")
    with translation.override(language), pytest.raises(ServiceError) as refused:
        services.record_result(division, 1, 1, 2000, 300, actor="test")
    exc = refused.value
    assert exc.code == "score_out_of_range"
    with translation.override(language):
        translated = exc.message
    with translation.override("en"):
        english = exc.message
    assert english == (
        "division A round 1: score 2000 is outside 0..1500; negative scores are only for "
        "byes, forfeits and penalties"
    )
    assert translated != english and "2000" in translated and "1500" in translated
    # read later in another language, the same refusal follows it (worded when read)
    with translation.override("fr"):
        assert "2000 est hors de 0..1500" in exc.message
        assert str(exc) == exc.message
    assert exc.as_dict()["code"] == "score_out_of_range"


NOT_ALLOWED = {
    "fr": (
        "sam ne peut pas inscrire des joueurs dans Venue : "
        "seuls ses directeurs du tournoi le peuvent"
    ),
    "es": "sam no puede inscribir jugadores en Venue: solo pueden sus directores del torneo",
    "pl": "sam nie może zapisywać graczy w Venue: mogą to tylko jego sędziowie",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_permission_refusal_says_what_was_refused_in_the_readers_language(language, db):
    """``require(..., what=...)``: the action refused and the roles that may are words of the
    reader's language, not English ones inside a translated sentence; the error's params (the
    API's, the audit trail's, the command line's) keep the English."""
    from django.contrib.auth.models import User

    tournament = services.create_tournament(name="Venue", published=True, actor="test")
    division = services.create_division(tournament, name="A", rounds=3, actor="test")
    scorer = User.objects.create_user("sam", password="pw-long-enough-1")
    tournament.scorekeepers.add(scorer)
    with translation.override(language), pytest.raises(ServiceError) as refused:
        services.register_player(division, name="Able, Ann", rating=1500, actor=scorer)
    exc = refused.value
    assert exc.code == "not_allowed"
    with translation.override(language):
        assert exc.message == NOT_ALLOWED[language]
    assert exc.message == "sam may not register players in Venue: only its directors may"
    assert exc.as_dict()["params"]["what"] == "register players"
    assert exc.as_dict()["params"]["who"] == "its directors"


def test_an_anonymous_refusal_on_a_draft_names_no_one_in_the_readers_language(db):
    from django.contrib.auth.models import AnonymousUser

    tournament = services.create_tournament(name="Secret Open", published=False, actor="test")
    with pytest.raises(ServiceError) as refused:
        services.create_division(tournament, name="A", rounds=3, actor=AnonymousUser())
    with translation.override("fr"):
        worded = refused.value.message
    assert worded.startswith(
        "un visiteur anonyme ne peut pas ajouter des divisions dans ce tournoi"
    )
    assert "Secret Open" not in worded and "anonymous" not in worded


def test_english_is_the_default_and_the_words_are_chosen_when_read():
    exc = ServiceError("unknown_tournament", slug="x")
    assert exc.message == "there is no tournament 'x'"  # no language activated: English
    with translation.override("fr"):
        assert exc.message == "il n'y a pas de tournoi 'x'"
        assert exc.as_dict()["message"] == "il n'y a pas de tournoi 'x'"
    with translation.override("pl"):
        assert exc.message == "nie ma turnieju 'x'"
    assert exc.message == "there is no tournament 'x'"
    # a wording table of a face follows the language too
    odd = ServiceError("pairing_already_paired", division="A", round=2)
    with translation.override("es"):
        assert odd.worded(WORDING).startswith("La ronda 2 de la división A ya está emparejada.")


def test_a_command_refuses_in_english_whatever_language_is_active():
    with translation.override("fr"):
        failure = CommandFailure.from_service(ServiceError("unknown_tournament", slug="x"))
        assert str(failure) == "there is no tournament 'x'"
        assert error_payload(failure)["error"] == "there is no tournament 'x'"


def test_the_refusals_page_stays_english_under_another_language():
    page = (REPO / "docs" / "refusals.md").read_text(encoding="utf-8")
    with translation.override("fr"):
        assert refusal_codes_page() == page


def test_a_form_built_at_import_words_its_refusal_when_shown():
    """The pairing form's "no games" refusal is set when the class is built (at import)."""
    from tournament.web.forms.pairing import PairingEditForm

    required = PairingEditForm.base_fields["games"].error_messages["required"]
    with translation.override("fr"):
        assert str(required) == (
            "l'appariement envoyé est illisible (no games) ; repartez de la proposition du moteur"
        )
    assert str(required) == (
        "the pairing sent is not readable (no games); start again from the engine's proposal"
    )
