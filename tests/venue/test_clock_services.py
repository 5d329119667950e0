"""The round clock's services: states from server times only, refusals that change nothing,
one audit event each, and only the tournament's directors."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser

from tournament.clock import NOT_STARTED, OVER, PAUSED, RUNNING, clock_state
from tournament.errors import ServiceError
from tournament.models import Announcement, AuditEvent, RoundClock, Tournament
from tournament.selectors import division_actions, division_clocks, live_announcement
from tournament.services import clock as svc

from .conftest import T0


def test_the_pure_clock_counts_down_from_server_times():
    state = clock_state(
        minutes=25,
        started_at=T0,
        paused_at=None,
        paused_seconds=0,
        extended_minutes=0,
        now=T0 + dt.timedelta(minutes=10, seconds=30),
    )
    assert state.state == RUNNING
    assert state.ends_at == T0 + dt.timedelta(minutes=25)
    assert (state.remaining_seconds, state.shown, state.remaining_minutes) == (870, "14:30", 15)
    over = clock_state(
        minutes=25,
        started_at=T0,
        paused_at=None,
        paused_seconds=60,
        extended_minutes=2,
        now=T0 + dt.timedelta(minutes=28),
    )
    assert (over.state, over.shown, over.ends_at) == (OVER, "0:00", T0 + dt.timedelta(minutes=28))
    paused = clock_state(
        minutes=25,
        started_at=T0,
        paused_at=T0 + dt.timedelta(minutes=5),
        paused_seconds=0,
        extended_minutes=0,
        now=T0 + dt.timedelta(hours=3),
    )
    assert (paused.state, paused.shown, paused.ends_at) == (PAUSED, "20:00", None)


def test_start_pause_resume_extend_reset(event, now):
    a, d = event.a, event.director
    state = svc.start_clock(a, 1, actor=d)  # the tournament's length: 25 minutes
    assert (state.state, state.minutes, state.ends_at) == (
        RUNNING,
        25,
        T0 + dt.timedelta(minutes=25),
    )
    now.advance(minutes=5)
    state = svc.pause_clock(a, 1, actor=d)
    assert (state.state, state.shown) == (PAUSED, "20:00")
    now.advance(minutes=3)  # paused three minutes: the end moves three minutes later
    state = svc.resume_clock(a, 1, actor=d)
    assert (state.state, state.ends_at) == (RUNNING, T0 + dt.timedelta(minutes=28))
    state = svc.extend_clock(a, 1, 2, "a fire alarm", actor=d)
    assert (state.extended_minutes, state.ends_at) == (2, T0 + dt.timedelta(minutes=30))
    clock = RoundClock.objects.get(division=a, round_number=1)
    assert clock.extensions == [
        {
            "minutes": 2,
            "reason": "a fire alarm",
            "at": (T0 + dt.timedelta(minutes=8)).isoformat(),
            "by": "dora",
        }
    ]
    now.advance(minutes=30)
    assert division_clocks(event.tournament, now.at)[0].clock.state == OVER
    # time was up: an extension counts from now
    state = svc.extend_clock(a, 1, 1, "", actor=d)
    assert (state.state, state.shown) == (RUNNING, "1:00")
    state = svc.reset_clock(a, 1, actor=d)
    assert state.state == NOT_STARTED
    state = svc.start_clock(a, 1, "30", actor=d)
    assert state.ends_at == now.at + dt.timedelta(minutes=30)
    actions = list(
        AuditEvent.objects.filter(object_type="RoundClock")
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions == [
        "start_clock",
        "pause_clock",
        "resume_clock",
        "extend_clock",
        "extend_clock",
        "reset_clock",
        "start_clock",
    ]
    extended = AuditEvent.objects.filter(action="extend_clock").order_by("id").first()
    assert extended.reason == "a fire alarm" and extended.user == d
    assert extended.before["extensions"] == [] and extended.after["extensions"][0]["minutes"] == 2
    # the division's last actions list its clock
    assert {e.action for e in division_actions(a, 20)} >= {"start_clock", "extend_clock"}


def test_each_clock_change_makes_cached_pages_stale(event, now):
    before = Tournament.objects.get(pk=event.tournament.pk).content_version
    svc.start_clock(event.a, 1, actor=event.director)
    assert Tournament.objects.get(pk=event.tournament.pk).content_version == before + 1


def _refused(code: str, call, *args, **kwargs) -> ServiceError:
    events = AuditEvent.objects.count()
    clocks = list(RoundClock.objects.values())
    with pytest.raises(ServiceError) as refused:
        call(*args, **kwargs)
    assert refused.value.code == code, refused.value.message
    assert AuditEvent.objects.count() == events and list(RoundClock.objects.values()) == clocks
    return refused.value


def test_refusals_name_the_round_and_change_nothing(event, now):
    a, d = event.a, event.director
    e = _refused("clock_not_running", svc.pause_clock, a, 1, actor=d)
    assert (
        e.message
        == "division A round 1: the clock is not running (not_started), so it cannot be paused"
    )
    _refused("clock_not_started", svc.extend_clock, a, 1, 2, actor=d)
    _refused("clock_not_started", svc.reset_clock, a, 1, actor=d)
    _refused("clock_not_paused", svc.resume_clock, a, 1, actor=d)
    _refused("round_not_paired", svc.start_clock, event.b, 1, actor=d)
    _refused("setup_too_large", svc.start_clock, a, 4, actor=d)  # the division has 3 rounds
    _refused("setup_too_small", svc.start_clock, a, 1, 0, actor=d)
    _refused("setup_not_number", svc.start_clock, a, 1, "ten", actor=d)
    svc.start_clock(a, 1, actor=d)
    _refused("clock_already_started", svc.start_clock, a, 1, actor=d)
    for bad, code in (
        ("0", "setup_too_small"),
        (61, "setup_too_large"),
        ("1.5", "setup_not_number"),
        ("", "setup_required"),
        (-2, "setup_too_small"),
    ):
        e = _refused(code, svc.extend_clock, a, 1, bad, actor=d)
        assert e.field == "minutes"
    _refused("text_too_long", svc.extend_clock, a, 1, 1, "x" * 201, actor=d)
    _refused("bidi_control", svc.extend_clock, a, 1, 1, "late \u202e", actor=d)
    _refused("clock_not_paused", svc.resume_clock, a, 1, actor=d)
    _refused("clock_unknown_action", svc.clock_action, a, 1, "stop", actor=d)
    now.advance(minutes=26)
    _refused("clock_over", svc.pause_clock, a, 1, actor=d)


@pytest.mark.parametrize("who", ["scorekeeper", "stranger", "anonymous"])
def test_only_the_tournaments_directors_run_the_clock(event, now, who):
    user = AnonymousUser() if who == "anonymous" else getattr(event, who)
    for action in svc.ACTIONS:
        e = _refused("not_allowed", svc.clock_action, event.a, 1, action, minutes=1, actor=user)
        assert "may not run the round clock in Clock Open" in e.message
    _refused("not_allowed", svc.post_announcement, event.tournament, "Hi", actor=user)
    _refused("not_allowed", svc.set_round_minutes, event.tournament, 30, actor=user)


def test_announcement_post_edit_expire_clear(event, now):
    t, d = event.tournament, event.director
    a = svc.post_announcement(t, "  Round 3   starts at 14:30 <b>sharp</b> ", actor=d)
    assert a.text == "Round 3 starts at 14:30 <b>sharp</b>"  # kept as typed; pages escape it
    svc.post_announcement(t, "Lunch until 13:30", "14:45", actor=d)
    a = Announcement.objects.get(tournament=t)
    assert a.until == T0 + dt.timedelta(minutes=45)  # the site's time zone is UTC in tests
    assert live_announcement(t, now.at) == a
    now.advance(minutes=46)
    assert live_announcement(t, now.at) is None
    _refused("announcement_until_past", svc.post_announcement, t, "Late", "14:00", actor=d)
    _refused("announcement_until_bad", svc.post_announcement, t, "Late", "soon", actor=d)
    _refused("announcement_empty", svc.post_announcement, t, "   ", actor=d)
    _refused("text_too_long", svc.post_announcement, t, "x" * 281, actor=d)
    svc.clear_announcement(t, actor=d)
    assert not Announcement.objects.exists()
    _refused("no_announcement", svc.clear_announcement, t, actor=d)
    actions = list(
        AuditEvent.objects.filter(tournament=t, action__contains="announcement")
        .order_by("id")
        .values_list("action", flat=True)
    )
    assert actions == ["post_announcement", "post_announcement", "clear_announcement"]


def test_round_length_setting(event, now):
    svc.set_round_minutes(event.tournament, "30", actor=event.director)
    t = Tournament.objects.get(pk=event.tournament.pk)
    assert t.round_minutes == 30
    event.a.tournament = t
    assert svc.start_clock(event.a, 1, actor=event.director).minutes == 30
    _refused("setup_too_small", svc.set_round_minutes, t, 0, actor=event.director)
