"""Entries online for a weekend: one form for several of its events."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from tournament.errors import ServiceError

from ...models import (
    Division,
    OnlineEntry,
    Tournament,
    Weekend,
)
from .. import entry_mail
from .entrant import (
    Confirmed,
    Submitted,
    _by_secret,
    _confirm,
    _submit,
)
from .outcomes import WeekendSubmitted
from .window import (
    Status,
)

# --------------------------------------------------------------------------- a weekend's form


@transaction.atomic
def submit_weekend_entries(
    weekend: Weekend,
    choices: dict[Tournament, Division | None],
    *,
    player_id: Any = None,
    name: Any = "",
    email: Any = "",
    notices_opt_in: bool = False,
    user: Any = None,
    site: str | None = None,
) -> WeekendSubmitted:
    """One form for several events of a weekend: a division per event chosen, each entered
    through ``submit_entry`` (so each event's window, cap, band and duplicate rules apply), all
    in one transaction: a refusal in any event writes nothing, and names that event's field
    (``event-<tournament slug>``) when it is about the division. The entrant is one registry
    player in every event (the first entry finds or makes them; the others reuse them)."""
    events = list(weekend.events.select_related("tournament").order_by("position"))
    ours = {we.tournament_id for we in events}
    for tournament in choices:
        if tournament.pk not in ours:
            raise ServiceError(
                "weekend_entries_not_an_event",
                field="event-" + tournament.slug,
                tournament=tournament.name,
                weekend=weekend.name,
            )
    chosen = [
        (we.tournament, choices[t])
        for we in events
        for t in choices
        if t.pk == we.tournament_id and choices[t] is not None
    ]
    if not chosen:
        raise ServiceError("weekend_entries_none", field="events", weekend=weekend.name)
    done: list[Submitted] = []
    for tournament, division in chosen:
        assert division is not None
        if division.tournament_id != tournament.pk:
            raise ServiceError(
                "entries_no_division", field="event-" + tournament.slug, division=division.name
            )
        division.tournament = tournament
        try:
            done.append(
                _submit(
                    division,
                    player_id=done[0].online.player_id if done else player_id,
                    name=name,
                    email=email,
                    notices_opt_in=notices_opt_in,
                    user=user,
                    made_now=done[0].online.player if done and done[0].new_player else None,
                    shares_contact=done[0].online.contact_shared if done else None,
                )
            )
        except ServiceError as exc:
            if exc.field in ("division", ""):
                exc.field = "event-" + tournament.slug
            raise
    submitted = WeekendSubmitted(done, done[0].confirm_token)
    entry_mail.weekend_submitted(weekend, submitted, site=site)  # one mail for all, after commit
    return submitted


@transaction.atomic
def confirm_weekend_entries(weekend: Weekend, token: Any) -> list[OnlineEntry]:
    """The weekend form's one mailed link: confirms the entry it was made for and the same
    entrant's other unconfirmed entries to this weekend's events from that address (they
    were submitted together), each placed or put on its waiting list by its event's rules."""
    return [done.online for done in confirm_weekend_links(weekend, token)]


@transaction.atomic
def confirm_weekend_links(
    weekend: Weekend, token: Any, *, site: str | None = None
) -> list[Confirmed]:
    """``confirm_weekend_entries`` with each entry's new personal link when the player
    confirmed entries someone made in their name (mailed to the registry's address)."""
    first = _by_secret(token, confirm=True)
    events = weekend.events.values_list("tournament_id", flat=True)
    if first.tournament_id not in set(events):
        raise ServiceError("entries_link_bad")
    together = [first] + list(
        OnlineEntry.objects.select_related("player", "division__tournament", "entry")
        .filter(
            player=first.player,
            email=first.email,
            status=first.status if first.status == Status.PENDING else Status.UNCONFIRMED,
            tournament_id__in=events,
        )
        .exclude(pk=first.pk)
    )
    confirmed = [_confirm(online) for online in together]
    renewed = [c for c in confirmed if c.link_token]
    if renewed:  # the player confirmed entries made for them: their own pages are new
        entry_mail.page_renewed(renewed, site=site, weekend=weekend)
    return confirmed
