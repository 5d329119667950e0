"""Writing to an event's directors from the calendar, without anyone seeing an address.

The visitor gives a name, their own e-mail address and a message; each of the tournament's
active directors with an address gets it as a mail (queued in this transaction, sent after
commit, as every mail: tournament.services.notices). The directors' addresses are never
shown or sent back; the visitor's is in the mail, so a director can answer. The page limits
how often one address may write (tournament.web.calendar).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from ..checks import refuse_bidi_controls
from ..errors import ServiceError
from ..models import Notice, Tournament
from .audit import audit
from .notice_texts import tournament_language
from .notices import _check_email, _site, queue_mail

NAME_LENGTH = 100
MESSAGE_LENGTH = 4000


def _visitor_text(text: str) -> str:
    """A visitor's words as they go in a mail: a mail's secret placeholders ("[[secret:...]]",
    "[[account:...]]") are filled in as it is sent, so a visitor's copy of one is broken."""
    return text.replace("[[", "[ [")


def director_addresses(tournament: Tournament) -> list[str]:
    """The addresses the contact form writes to (never shown to anyone)."""
    return sorted(
        set(
            tournament.directors.filter(is_active=True)
            .exclude(email="")
            .values_list("email", flat=True)
        )
    )


def contact_directors(
    tournament: Tournament, *, name: Any, email: Any, message: Any, actor: Any = None
) -> int:
    """Queue the visitor's message to each director; how many directors it goes to.

    Refused, with nothing queued: no name, no or a malformed address, no message or one over
    ``MESSAGE_LENGTH``, or a tournament whose directors have no address.
    """
    who = "" if name is None else " ".join(str(name).split())
    if not who:
        raise ServiceError("contact_name_needed", field="name")
    refuse_bidi_controls(who, "your name", field="name")
    who = who[:NAME_LENGTH]
    if email is None or not str(email).strip():
        raise ServiceError("contact_email_needed", field="email")
    address = _check_email(email, who)
    text = "" if message is None else str(message).replace("\x00", "").strip()
    if not text:
        raise ServiceError("contact_message_needed", field="message")
    if len(text) > MESSAGE_LENGTH:
        raise ServiceError(
            "contact_message_too_long", field="message", value=len(text), maximum=MESSAGE_LENGTH
        )
    to = director_addresses(tournament)
    if not to:
        raise ServiceError("contact_no_directors", tournament=tournament.name)
    page = _site(reverse("public:tournament", args=[tournament.slug]))
    # to the directors: in the tournament's language (the visitor's words as they typed them)
    with translation.override(tournament_language(tournament)):
        subject = _("{tournament}: a message from {name}").format(
            tournament=tournament.name, name=who
        )
        body = _(
            "{name} <{address}> wrote to the directors of {tournament} through the events "
            "calendar ({page}).\nAnswer them at {address}; they have not seen your address."
        ).format(name=_visitor_text(who), address=address, tournament=tournament.name, page=page)
    body += f"\n\n{_visitor_text(text)}\n"
    with transaction.atomic():
        for director in to:
            queue_mail(Notice.Kind.CONTACT, director, subject, body, tournament=tournament)
        audit(
            tournament,
            actor or "calendar",
            "contact_directors",
            tournament,
            f"message from {who} to {len(to)} director(s)",
        )
    return len(to)
