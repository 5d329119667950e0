"""The languages' acceptance test, in a real browser (issue "In the players' own language").

A player whose browser speaks French, Spanish or Polish (Playwright's ``locale``: the
``Accept-Language`` header and ``navigator.language``) enters online on the tournament's entry
page, receives the confirmation mail in that language, follows its link, checks in on their
own page, and reads the round's pairings once the director has paired it: every page comes out
in the language (``<html lang>`` and its words), passes axe-core with no serious violation and
fits a 360 px phone (the checks of tests/a11y). The tournament's own language is French, so a
Spanish or Polish browser also shows that the visitor's language wins over the tournament's.
Then a director prints the scorecards from the console's print link: the PDF reads French.
"""

from __future__ import annotations

import datetime as dt
import io
import re

import pypdf
import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from pairings.services.store import PlannedGame, save_round_pairings
from tests.a11y.test_axe import PHONE, _check
from tests.core.browser import BROWSER_MARKS
from tests.core.conftest import make_director
from tournament import services
from tournament.models import Entry, Tournament
from tournament.services import online_entries as oe

pytestmark = BROWSER_MARKS

# what each page says in each language (from the catalogues), lower-cased
WORDS = {
    "fr": {
        "sent": "consultez vos e-mails",
        "subject": "confirmez votre inscription au tournoi open des langues",
        "check in": "je suis là : pointez-moi",
        "checked in": "vous êtes pointé. bonne chance !",
        "round": "appariements de la ronde 1",
        "mail": "l’inscription compte une fois confirmée ici",
    },
    "es": {
        "sent": "revisa tu correo",
        "subject": "confirma tu inscripción en open des langues",
        "check in": "estoy aquí: registrar mi llegada",
        "checked in": "tu llegada está registrada. ¡buena suerte!",
        "round": "emparejamientos de la ronda 1",
        "mail": "la inscripción cuenta en cuanto la confirmes aquí",
    },
    "pl": {
        "sent": "sprawdź pocztę",
        "subject": "potwierdź zgłoszenie do turnieju open des langues",
        "check in": "jestem na miejscu: potwierdź moją obecność",
        "checked in": "twoja obecność jest potwierdzona. powodzenia!",
        "round": "kojarzenia rundy 1",
        "mail": "zgłoszenie liczy się po potwierdzeniu tutaj",
    },
}
ENTRANT = {"fr": "Lefèvre, Éloïse", "es": "Núñez, Iñigo", "pl": "Żółkiewski, Łucja"}


@pytest.fixture
def mailbox(settings) -> list[mail.EmailMessage]:
    """The live server's mail, kept in memory (it runs in this process, on a thread)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    return mail.outbox


@pytest.fixture
def event(mailbox) -> Tournament:
    """A French tournament taking entries online, three players already in division A. Built
    for each test (milliseconds): the live server's tests empty the database after each."""
    t = services.create_tournament(name="Open des Langues", slug="langues", published=True)
    t.language = "fr"
    t.save(update_fields=["language"])
    a = services.create_division(t, name="A", rounds=3)
    for name, rating in (("Able, Ann", 1800), ("Baker, Bo", 1700), ("Cole, Cy", 1600)):
        services.register_player(a, name=name, rating=rating)
    director = make_director(t, "langues-td")
    now = timezone.now()
    oe.open_entries(t, now - dt.timedelta(hours=1), now + dt.timedelta(days=3), actor=director)
    oe.set_division_rule(a, cap=12, actor=director)
    return t


def _page_in(page, language: str, kind: str, found: list[str], wide: list[str]) -> str:
    """The page's text, lower-cased, after checking its language, axe-core and its width."""
    assert page.get_attribute("html", "lang") == language, (kind, page.url)
    _check(page, f"{kind} in {language}", page.url, found, wide)
    return " ".join(page.locator("main").inner_text().lower().split())


@pytest.mark.slow(seconds=4)  # chromium through six pages, axe-core on each
@pytest.mark.parametrize("language", ["fr", "es", "pl"])
def test_a_player_enters_checks_in_and_reads_the_pairings_in_their_language(
    live_server, browser, event, mailbox, language
):
    words = WORDS[language]
    found: list[str] = []
    wide: list[str] = []
    context = browser.new_context(viewport=PHONE, locale=language, bypass_csp=True)
    context.set_default_timeout(5000)
    phone = context.new_page()
    phone.goto(live_server.url + reverse("public:entries", args=[event.slug]))
    _page_in(phone, language, "entry page", found, wide)
    if phone.locator("#id_division").count():
        phone.select_option("#id_division", "a")
    phone.fill("#id_name", ENTRANT[language])
    phone.fill("#id_email", f"{language}@example.org")
    phone.locator("#entry-form button[type=submit]").click()
    phone.wait_for_load_state()
    assert words["sent"] in _page_in(phone, language, "check your e-mail", found, wide)

    # the mail, in the language the entrant entered in; its link confirms the entry
    assert [m.to for m in mailbox] == [[f"{language}@example.org"]]
    assert " ".join(mailbox[0].subject.lower().split()) == words["subject"]
    body = " ".join(mailbox[0].body.lower().split())
    assert words["mail"] in body and "someone" not in body, body
    confirm = re.search(r"http://\S+/entry/confirm/\S+/", mailbox[0].body).group(0)
    phone.goto(confirm)
    _page_in(phone, language, "confirmation", found, wide)
    phone.click("#confirm-button")
    phone.wait_for_load_state()
    _page_in(phone, language, "confirmed", found, wide)
    assert phone.locator("#confirmed").count() == 1
    entry = Entry.objects.get(player__name=ENTRANT[language])
    assert entry.checked_in_at is None

    # check in on the entrant's own page: the mail's second link
    own = re.search(r"http://\S+/entry/(?!confirm/)\S+/", mailbox[0].body).group(0)
    phone.goto(own)
    assert words["check in"] in _page_in(phone, language, "own page", found, wide)
    phone.click("#check-in-button")
    phone.wait_for_load_state()
    assert words["checked in"] in _page_in(phone, language, "checked in", found, wide)
    entry.refresh_from_db()
    assert entry.checked_in_at is not None

    # the director pairs round 1; the player reads the pairings
    division = entry.division
    save_round_pairings(
        division, 1, [PlannedGame(1, entry.number, board=1), PlannedGame(2, 3, board=2)]
    )
    phone.goto(live_server.url + reverse("public:round", args=[event.slug, division.slug, 1]))
    text = _page_in(phone, language, "round", found, wide)
    assert words["round"] in text and ENTRANT[language].lower() in text
    context.close()
    assert not found, "serious/critical axe-core violations:\n" + "\n".join(found)
    assert not wide, "pages that scroll sideways at 360 px:\n" + "\n".join(wide)


@pytest.mark.slow(seconds=2)  # chromium: the sign-in, the console's division page, one PDF
def test_a_director_prints_the_scorecards_in_french_from_the_console(live_server, browser, event):
    context = browser.new_context(viewport=PHONE, locale="fr", bypass_csp=True)
    context.set_default_timeout(5000)
    page = context.new_page()
    division = event.divisions.get()
    services.register_player(division, name="Dunn, Di", rating=1500)
    save_round_pairings(division, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2)])
    console = live_server.url + reverse("console:division", args=[event.slug, division.slug])
    page.goto(console)
    page.wait_for_url("**/accounts/login/**")
    page.fill("#id_username", "langues-td")
    page.fill("#id_password", "pw-long-enough-1")
    page.click("main button[type=submit]")
    page.wait_for_url(console)
    assert page.get_attribute("html", "lang") == "fr"
    link = page.locator("main a[href$='?kind=scorecards']")
    assert link.inner_text() == "Feuilles de match"
    response = page.request.get(live_server.url + link.get_attribute("href"))
    assert response.ok and response.headers["content-type"] == "application/pdf"
    reader = pypdf.PdfReader(io.BytesIO(response.body()))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    for words in ("Feuilles de match", "Division A", "Adversaire", "Écart cumulé", "Able, Ann"):
        assert words in text, words
    assert "Scorecards" not in text and "Opponent" not in text
    context.close()
