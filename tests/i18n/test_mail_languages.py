"""Each mail Gibson sends is written in its recipient's language (docs/languages.md): an
entrant's in the language they entered in (``OnlineEntry.language``), a subscribed player's
notices likewise or else in the tournament's, a sign-up's and a password reset's in the
language of the page that asked, a message to the directors in the tournament's. Under
English every mail reads exactly as before."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.utils import timezone, translation

from tests.core.conftest import make_director
from tournament import services
from tournament.models import Notice, NoticeSubscription, OnlineEntry
from tournament.services import accounts, calendar, notice_texts, notices
from tournament.services import online_entries as oe
from tournament.services.weekends import add_event, create_weekend

pytestmark = pytest.mark.django_db


@pytest.fixture
def spring(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    t = services.create_tournament(name="Spring Open", slug="spring", published=True)
    a = services.create_division(t, name="A", rounds=3)
    director = make_director(t, "dora")
    director.email = "dora@example.org"
    director.save()
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor=director)
    oe.set_division_rule(a, cap=1, actor=director)
    return a


def _enter(division, name: str, language: str) -> oe.Submitted:
    email = name.split(",")[0].encode("ascii", "ignore").decode().lower() + "@example.org"
    with translation.override(language):
        return oe.submit_entry(division, name=name, email=email, notices_opt_in=True)


def _mail(kind: str) -> Notice:
    return Notice.objects.filter(kind=kind).latest("id")


def test_an_entry_records_its_language_and_its_confirmation_is_written_in_it(spring):
    done = _enter(spring, "Lefèvre, Éloïse", "fr")
    assert done.online.language == "fr"
    link = _mail(Notice.Kind.ENTRY_LINK)
    assert link.subject == "Confirmez votre inscription au tournoi Spring Open"
    assert link.body.startswith(
        "Quelqu’un (vous, nous l’espérons) a inscrit Lefèvre, Éloïse au tournoi Spring Open, "
        "division A.\nL’inscription compte une fois confirmée ici :"
    )
    oe.confirm_entry(done.confirm_token)  # the entrant's subscription: notices follow
    entered = _mail(Notice.Kind.ENTRY)
    assert entered.subject == "Inscription confirmée : Spring Open, division A"
    assert entered.body.startswith("Votre inscription à Spring Open, division A est confirmée.")


def test_an_english_entry_reads_as_before(spring):
    done = _enter(spring, "Adams, Ada", "en")
    assert done.online.language == "en"
    link = _mail(Notice.Kind.ENTRY_LINK)
    assert link.subject == "Confirm your entry to Spring Open"
    assert link.body.startswith(
        "Someone (we hope you) entered Adams, Ada in Spring Open, division A.\nYour entry "
        "counts once you confirm it here:\n\nhttp"
    )
    assert link.body.endswith("\n\nIf it was not you, ignore this message: nothing is entered.")


def test_the_waiting_list_and_promotion_notices_follow_each_entrant(spring):
    first = _enter(spring, "Adams, Ada", "en")
    oe.confirm_entry(first.confirm_token)
    second = _enter(spring, "Nowak, Łucja", "pl")
    oe.confirm_entry(second.confirm_token)  # the division holds one: she waits
    waiting = _mail(Notice.Kind.WAITING)
    assert waiting.subject == "Lista rezerwowa, miejsce 1: Spring Open, grupa A"
    assert "jesteś na miejscu 1 listy rezerwowej" in waiting.body
    oe.withdraw_entry(first.link_token)  # a place opens: she moves in
    promoted = _mail(Notice.Kind.PROMOTED)
    assert promoted.subject == "Jesteś w turnieju: Spring Open, grupa A"
    sub = NoticeSubscription.objects.get(player=second.online.player)
    assert "Aby z nich zrezygnować: http" in notices._footer(sub)
    ada = NoticeSubscription.objects.get(player=first.online.player)
    assert "To stop them: http" in notices._footer(ada)


def test_a_player_who_never_entered_online_gets_the_tournaments_language(spring, settings):
    spring.tournament.language = "es"
    spring.tournament.save(update_fields=["language"])
    entry = services.register_player(spring, name="García, José")
    assert notice_texts.player_language(spring.tournament, entry.player_id) == "es"
    with translation.override("es"):
        subject, text = notice_texts.entry_confirmed(spring.tournament, spring)
    assert subject == "Inscripción confirmada: Spring Open, división A"


def test_pairing_and_final_results_texts_are_translated(spring):
    with translation.override("fr"):
        line = notice_texts.result_line(
            spring, type("Row", (), {"rank": 2, "wins": 2, "losses": 1, "spread": 40})(), 8, "u"
        )
        subject, body = notice_texts.final_results(spring.tournament, [line])
        board = notice_texts.board_name(spring, 3)
    assert subject == "Résultats définitifs : Spring Open"
    assert body == (
        "Les résultats définitifs du tournoi Spring Open :\n\n"
        "Division A : place 2 sur 8, 2-1, écart +40.\nClassement : u"
    )
    assert board == "table 3"


def test_the_weekend_confirmation_is_written_in_the_entrants_language(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    now = timezone.now()
    early = services.create_tournament(name="Early Bird", slug="early", published=True)
    main = services.create_tournament(name="Main Event", slug="main", published=True)
    td = make_director(early, "td-both")
    main.directors.add(td)
    ea = services.create_division(early, name="A", rounds=3)
    ma = services.create_division(main, name="A", rounds=3)
    for t, d in ((early, ea), (main, ma)):
        oe.open_entries(t, now - dt.timedelta(hours=1), now + dt.timedelta(days=2), actor=td)
        oe.set_division_rule(d, actor=td)
    weekend = create_weekend(td, "Spring Weekend", early, slug="spring")
    add_event(weekend, main, td)
    with translation.override("es"):
        oe.submit_weekend_entries(
            weekend, {early: ea, main: ma}, name="García, José", email="jose@example.org"
        )
    link = _mail(Notice.Kind.ENTRY_LINK)
    assert link.subject == "Confirma tus inscripciones en Spring Weekend"
    assert link.body.startswith(
        "Alguien (esperamos que tú) ha inscrito a García, José en 2 torneos de Spring Weekend."
    )
    assert "Early Bird, división A: http" in link.body
    assert set(OnlineEntry.objects.values_list("language", flat=True)) == {"es"}


def test_a_sign_up_mail_is_written_in_the_language_of_its_page(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with translation.override("pl"):
        accounts.sign_up(username="lucja", email="lucja@example.org", password="a-long-pass-42")
    mail = _mail(Notice.Kind.SIGN_UP)
    assert mail.subject == "Potwierdź swoje konto Gibson"
    assert mail.body.startswith("Ktoś (mamy nadzieję, że Ty) założył konto w Gibson jako lucja.")
    accounts.sign_up(username="ada", email="ada@example.org", password="a-long-pass-42")
    english = _mail(Notice.Kind.SIGN_UP)
    assert english.subject == "Confirm your Gibson account"
    assert english.body.startswith("Someone (we hope you) signed up to Gibson as ada.\n")


def test_the_password_reset_mail_is_translated():
    context = {
        "user": get_user_model()(username="lucja"),
        "protocol": "https",
        "domain": "example.org",
        "uid": "MQ",
        "token": "abc-123",
    }
    with translation.override("fr"):
        subject = render_to_string("accounts/reset_subject.txt", context)
        body = render_to_string("accounts/reset_email.txt", context)
    assert subject.strip() == "Réinitialisation du mot de passe Gibson"
    assert body.startswith(
        "Quelqu’un a demandé à réinitialiser le mot de passe Gibson de lucja.\n"
        "Choisissez-en un nouveau ici (le lien ne sert qu’une fois) :\n\nhttps://example.org/"
    )
    english = render_to_string("accounts/reset_email.txt", context)
    assert english.startswith(
        "Someone asked to reset the Gibson password of lucja.\n"
        "Set a new one here (the link works once):\n\nhttps://example.org/"
    )
    assert english.endswith("\n\nIf it was not you, ignore this message.\n")
    assert render_to_string("accounts/reset_subject.txt", context).strip() == (
        "Gibson password reset"
    )


def test_a_message_to_the_directors_is_written_in_the_tournaments_language(spring, settings):
    spring.tournament.language = "fr"
    spring.tournament.save(update_fields=["language"])
    with translation.override("pl"):  # the visitor's page: not the directors' language
        calendar.contact_directors(
            spring.tournament, name="Ola", email="ola@example.org", message="Czy jest parking?"
        )
    mail = _mail(Notice.Kind.CONTACT)
    assert mail.subject == "Spring Open : un message de Ola"
    assert mail.body.startswith("Ola <ola@example.org> a écrit aux directeurs du tournoi")
    assert mail.body.endswith("\n\nCzy jest parking?\n")
