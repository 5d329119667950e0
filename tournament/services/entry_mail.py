"""The mails of entries online ("one mail path"): the confirmation link, the
entrant's own page, the maker of an entry told it waits for the player, for one event's form
and for a weekend's.

They used to be sent by the pages after the entry's write, inline: with the mail server down
the entry answered 500, stayed unconfirmed with no link mailed, and a second try was refused
as already entered. Now the entry services queue them in the entry's own transaction as
notices to an address (``notices.queue_mail``): sent after the commit, never for a write
rolled back, a failure recorded and retried (``notices.retry_failed``), and the entrant may
have the confirmation sent again (``resend_entry_link``, throttled by the page).

The links' secrets are placeholders in the stored body (``notices.secret_placeholder``): the
mail carries the secret derived with the site's key as it is sent, the database only its hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..errors import ServiceError
from ..models import Notice, OnlineEntry, Tournament, Weekend
from . import notice_texts as texts
from . import notices
from .audit import Actor, audit

if TYPE_CHECKING:
    from .online_entries.outcomes import Confirmed, Submitted, WeekendSubmitted

LINK = "entry.link"
CONFIRM = "entry.confirm"
_TOKEN = "SECRET-PLACEHOLDER"


def mail_key(online: OnlineEntry) -> str:
    """The key an entry's mails are queued under: the page and the resend find them by it."""
    return f"online:{online.pk}"


def _url(site: str | None, name: str, purpose: str, nonce: str, *args: Any) -> str:
    path = reverse(name, args=[*args, _TOKEN])
    base = (site or settings.SITE_URL).rstrip("/")
    return base + path.replace(_TOKEN, notices.secret_placeholder(purpose, nonce))


def _page(site: str | None, nonce: str) -> str:
    return _url(site, "entries:mine", LINK, nonce)


def _mail(kind: str, to: str, subject: str, body: str, online: OnlineEntry) -> None:
    if to:
        notices.queue_mail(
            kind, to, subject, body, tournament=online.tournament, key=mail_key(online)
        )


def _status(online: OnlineEntry) -> str:
    """The entry's state as its mail says it (the model's labels are the console's words)."""
    words = {
        OnlineEntry.Status.UNCONFIRMED: _("awaiting e-mail confirmation"),
        OnlineEntry.Status.PENDING: _(
            "awaiting the player's confirmation or the director's approval"
        ),
        OnlineEntry.Status.ENTERED: _("entered"),
        OnlineEntry.Status.WAITING: _("on the waiting list"),
        OnlineEntry.Status.SENT: _("sent to the venue"),
        OnlineEntry.Status.WITHDRAWN: _("withdrawn"),
        OnlineEntry.Status.REFUSED: _("refused"),
        OnlineEntry.Status.DECLINED: _("not confirmed for the player"),
    }
    return str(words.get(online.status, online.get_status_display()))


def _your_page(name: str, status: str, division: str, link: str) -> str:
    text = _(
        "{name}: {status} in division {division}.\nYour own page (see your entry, withdraw "
        "it, check in on the day):\n\n{link}"
    )
    return text.format(name=name, status=status, division=division, link=link)


def submitted(done: Submitted, *, site: str | None = None) -> None:
    """Queue the mails of one event's entry just made (in its transaction), in the language
    the entrant entered in."""
    with translation.override(texts.online_language(done.online)):
        _submitted(done, site)


def _submitted(done: Submitted, site: str | None) -> None:
    online = done.online
    tournament, division, player = online.tournament, online.division, online.player
    link = _page(site, done.link_nonce)
    confirm = (
        _url(site, "entries:confirm", CONFIRM, done.confirm_nonce) if done.confirm_token else ""
    )
    names = {"name": player.name, "tournament": tournament.name, "division": division.name}
    if done.awaits:
        if done.awaits == "player":
            held = _(
                "Your entry of {name} in division {division} awaits the player's confirmation "
                "or a director's approval: it holds no place until then.\nIts page:\n\n{link}"
            )
        else:
            held = _(
                "Your entry of {name} in division {division} awaits a director's approval: it "
                "holds no place until then.\nIts page:\n\n{link}"
            )
        # (the player's own address typed: the confirmation mail is all they need)
        if online.email and online.email.lower() != player.email.lower():
            _mail(
                Notice.Kind.ENTRY_HELD,
                online.email,
                _("Your entry to {tournament}: awaiting confirmation").format(**names),
                held.format(link=link, **names),
                online,
            )
        if confirm:
            body = _(
                "Someone entered you, {name}, in {tournament}, division {division}.\nIf you "
                "mean to play, confirm it here (your own page comes with the confirmation):"
                "\n\n{confirm}\n\nIf it was not you, ignore this message: nothing is entered."
            )
            _mail(
                Notice.Kind.ENTRY_LINK,
                player.email,
                _("Confirm your entry to {tournament}").format(**names),
                body.format(confirm=confirm, **names),
                online,
            )
        return
    if confirm:
        body = _(
            "Someone (we hope you) entered {name} in {tournament}, division {division}.\nYour "
            "entry counts once you confirm it here:\n\n{confirm}\n\nYour own page (see your "
            "entry, withdraw it, check in on the day):\n\n{link}\n\nIf it was not you, ignore "
            "this message: nothing is entered."
        )
        _mail(
            Notice.Kind.ENTRY_LINK,
            online.email,
            _("Confirm your entry to {tournament}").format(**names),
            body.format(confirm=confirm, link=link, **names),
            online,
        )
        return
    _mail(
        Notice.Kind.ENTRY_PAGE,
        online.email,
        _("Your entry to {tournament}").format(**names),
        _your_page(player.name, _status(online), division.name, link),
        online,
    )


def _pages(site: str | None, entries: list[Any]) -> str:
    return "\n".join(
        _("{tournament}, division {division}: {link}").format(
            tournament=e.online.tournament.name,
            division=e.online.division.name,
            link=_page(site, e.link_nonce),
        )
        for e in entries
    )


def weekend_submitted(weekend: Weekend, done: WeekendSubmitted, *, site: str | None) -> None:
    """Queue the one mail of a weekend form's entries (and the player's, when they name a
    registry player), in their transaction, in the language the entrant entered in."""
    with translation.override(texts.online_language(done.entries[0].online)):
        _weekend_submitted(weekend, done, site)


def _weekend_submitted(weekend: Weekend, done: WeekendSubmitted, site: str | None) -> None:
    first_done = done.entries[0]
    first = first_done.online
    pages = _pages(site, done.entries)
    count = len(done.entries)
    confirm = (
        _url(site, "public:weekend_confirm", CONFIRM, first_done.confirm_nonce, weekend.slug)
        if done.confirm_token
        else ""
    )
    names = {"name": first.player.name, "weekend": weekend.name, "count": count}
    if first_done.awaits:
        # entries naming a registry player: the player confirms at the registry's address
        # (never the one typed here), or a director approves; they hold no place until then
        if confirm:
            body = ngettext(
                "Someone entered you, {name}, in {count} event(s) of {weekend}.\nIf you mean "
                "to play, confirm them here:\n\n{confirm}\n\nIf it was not you, ignore this "
                "message: nothing is entered.",
                "Someone entered you, {name}, in {count} event(s) of {weekend}.\nIf you mean "
                "to play, confirm them here:\n\n{confirm}\n\nIf it was not you, ignore this "
                "message: nothing is entered.",
                count,
            )
            _mail(
                Notice.Kind.ENTRY_LINK,
                first.player.email,
                _("Confirm your entries to {weekend}").format(**names),
                body.format(confirm=confirm, **names),
                first,
            )
        kind = Notice.Kind.ENTRY_HELD
        subject = _("Your entries to {weekend}: awaiting confirmation").format(**names)
        if confirm:
            body = _(
                "Your entries of {name} to {weekend} await the player's confirmation or a "
                "director's approval: they hold no place until then.\n\nYour own page in "
                "each event:\n\n{pages}"
            )
        else:
            body = _(
                "Your entries of {name} to {weekend} await a director's approval: they hold "
                "no place until then.\n\nYour own page in each event:\n\n{pages}"
            )
        body = body.format(pages=pages, **names)
    elif confirm:
        kind = Notice.Kind.ENTRY_LINK
        subject = _("Confirm your entries to {weekend}").format(**names)
        body = ngettext(
            "Someone (we hope you) entered {name} in {count} event(s) of {weekend}.\nThey "
            "count once you confirm them, all at once, here:\n\n{confirm}\n\nYour own page "
            "in each event (see your entry, withdraw it, check in on the day):\n\n{pages}\n\n"
            "If it was not you, ignore this message: nothing is entered.",
            "Someone (we hope you) entered {name} in {count} event(s) of {weekend}.\nThey "
            "count once you confirm them, all at once, here:\n\n{confirm}\n\nYour own page "
            "in each event (see your entry, withdraw it, check in on the day):\n\n{pages}\n\n"
            "If it was not you, ignore this message: nothing is entered.",
            count,
        ).format(confirm=confirm, pages=pages, **names)
    else:
        kind = Notice.Kind.ENTRY_PAGE
        subject = _("Your entries to {weekend}").format(**names)
        body = _("{name}: your entries to {weekend}.\n\n{pages}").format(pages=pages, **names)
    _mail(kind, first.email, subject, body, first)


def page_renewed(
    confirmed: list[Confirmed], *, site: str | None, weekend: Weekend | None = None
) -> None:
    """The player confirmed entries someone made for them: mail them their own new pages,
    in the language the entry was made in."""
    online = confirmed[0].online
    with translation.override(texts.online_language(online)):
        if weekend is None:
            _mail(
                Notice.Kind.ENTRY_PAGE,
                online.email,
                _("Your entry to {tournament}").format(tournament=online.tournament.name),
                _your_page(
                    online.player.name,
                    _status(online),
                    online.division.name,
                    _page(site, confirmed[0].link_nonce),
                ),
                online,
            )
            return
        body = _(
            "{name}: your own page in each event (see your entry, withdraw it, check in on "
            "the day):\n\n{pages}"
        )
        _mail(
            Notice.Kind.ENTRY_PAGE,
            online.email,
            _("Your entries to {weekend}").format(weekend=weekend.name),
            body.format(name=online.player.name, pages=_pages(site, confirmed)),
            online,
        )


def mail_failed(online: OnlineEntry) -> bool:
    """Whether the entry's latest confirmation or page mail failed (the mail server did not
    answer): the page then says it will follow."""
    key = mail_key(online)
    return any(
        notices.mail_state(kind, key) == Notice.State.FAILED
        for kind in (Notice.Kind.ENTRY_LINK, Notice.Kind.ENTRY_PAGE, Notice.Kind.ENTRY_HELD)
    )


@transaction.atomic
def resend_entry_link(tournament: Tournament, email: Any) -> int:
    """ "Send the link again": the confirmation mail of each entry to ``tournament`` still
    awaiting its entrant's confirmation from ``email`` goes out once more, with the same
    links. Answers how many; the page answers alike whatever the count (it reveals no
    entry) and throttles by the address typed and the client's."""
    address = str(email or "").strip()
    if not address or len(address) > 254:
        raise ServiceError("entries_email_needed", field="email")
    waiting = OnlineEntry.objects.select_related("player", "division").filter(
        tournament=tournament, email__iexact=address, status=OnlineEntry.Status.UNCONFIRMED
    )
    sent = 0
    for online in waiting:
        if notices.send_again(Notice.Kind.ENTRY_LINK, mail_key(online)) is None:
            continue  # a weekend's other events: their one mail is under its first entry
        sent += 1
        audit(
            tournament,
            Actor(f"entrant {online.player.name}"),
            "resend_entry_link",
            online,
            f"{online.player.name}'s confirmation link to {online.division.name} sent again",
        )
    return sent
