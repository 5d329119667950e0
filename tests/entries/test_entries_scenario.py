"""The issue's day in the services: 30 players enter online into two divisions (A capped at
12: 3 wait), two withdraw and the first two waiting move up (each told by a notice), everyone
left checks in but one, who is removed before round 1, and round 1 is paired from those
checked in with numbers 1..N."""

from __future__ import annotations

from django.core import mail

from pairings.services.rounds import pair_round
from tournament.models import Game, OnlineEntry
from tournament.services import checkin
from tournament.services import online_entries as oe

from .conftest import enter

SURNAMES = (
    "Abbot Brandt Corwin Dufresne Eckhart Fairbanks Gutierrez Holloway Iverson Jablonski "
    "Kowalczyk Lindqvist Montague Nakamura Oyelaran"
).split()
A_NAMES = [f"{s}, Anna" for s in SURNAMES]
B_NAMES = [f"{s}, Bert" for s in SURNAMES]


def test_thirty_enter_two_withdraw_two_move_up_and_round_1_pairs_the_checked_in(
    event, django_capture_on_commit_callbacks
):
    oe.set_division_rule(event.a, cap=12, actor=event.director)
    a = [enter(event.a, n, f"a{k}@example.org") for k, n in enumerate(A_NAMES)]
    for k, n in enumerate(B_NAMES):
        enter(event.b, n, f"b{k}@example.org")
    assert event.a.entries.count() == 12 and len(oe.waiting_list(event.a)) == 3
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):  # notices go after the commit
        oe.withdraw_entry(a[0].link_token)
        oe.withdraw_entry(a[5].link_token)
    assert sorted(m.to[0] for m in mail.outbox) == ["a12@example.org", "a13@example.org"]
    assert [w.player.name for w in oe.waiting_list(event.a)] == [A_NAMES[14]]
    assert list(event.a.entries.values_list("number", flat=True)) == list(range(1, 13))
    entered = OnlineEntry.objects.filter(status="entered")
    assert entered.count() == 27
    absent = entered.filter(division=event.b).last().entry
    for online in entered.select_related("entry"):
        if online.entry != absent:
            checkin.check_in(online.entry, actor=oe.entries_actor(online))
    assert checkin.remove_absent(event.b, actor=event.director) == [f"#15 {absent.player.name}"]
    for division in (event.a, event.b):
        pair_round(division, 1, system="koth", actor=event.director)
        numbers = set(division.entries.values_list("number", flat=True))
        paired = set()
        for g in Game.objects.filter(round__division=division, round__number=1):
            paired |= {g.player1.number} | ({g.player2.number} if g.player2_id else set())
        assert paired == numbers == set(range(1, len(numbers) + 1))
        assert not division.entries.filter(checked_in_at__isnull=True).exists()
