"""Weekends (issue 22 item 5): grouping services, their refusals, and rating in start order."""

from __future__ import annotations

import datetime

import pytest

from ratings.division import submit_divisions
from ratings.models import PlayerRating, RatedEvent
from ratings.services import rerate_list
from ratings.weekend import submit_weekend
from tests.core.conftest import make_director
from tests.weekends.conftest import DAY, play
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, Player, Weekend, WeekendEvent
from tournament.services.weekends import (
    add_event,
    create_weekend,
    move_event,
    remove_event,
    set_seeding,
)

pytestmark = pytest.mark.django_db


def order(weekend) -> list[str]:
    return list(weekend.events.order_by("position").values_list("tournament__name", flat=True))


def ratings(lst) -> dict[str, int]:
    return dict(PlayerRating.objects.filter(rating_list=lst).values_list("player__name", "rating"))


def make_weekend(td, first, *rest):
    w = create_weekend(td, "Spring Weekend", first, slug="spring")
    for t in rest:
        add_event(w, t, td)
    return w


def test_a_player_in_two_events_is_one_registry_player(pair_of_events):
    early, main = pair_of_events
    assert Player.objects.count() == 6
    for name in ("Able, Ann", "Fox, Flo"):
        entries = Entry.objects.filter(player__name=name)
        assert {e.division.tournament_id for e in entries} == {early.pk, main.pk}
        assert len({e.player_id for e in entries}) == 1


def test_create_add_move_remove_are_audited_and_keep_places_one_to_n(td, pair_of_events):
    early, main = pair_of_events
    late = play("Late Event", upsets=False)
    late.directors.add(td)
    w = make_weekend(td, early, main)
    add_event(w, late, td, position=1)
    assert order(w) == ["Late Event", "Early Bird", "Main Event"]
    move_event(w, late, "3", td)
    assert order(w) == ["Early Bird", "Main Event", "Late Event"]
    remove_event(w, main, td)
    assert order(w) == ["Early Bird", "Late Event"]
    assert list(w.events.values_list("position", flat=True)) == [1, 2]
    actions = list(
        AuditEvent.objects.filter(action__contains="weekend").values_list("action", flat=True)
    )
    for action in (
        "create_weekend",
        "add_weekend_event",
        "move_weekend_event",
        "remove_weekend_event",
    ):
        assert action in actions
    set_seeding(w, late, True, td)
    assert WeekendEvent.objects.get(tournament=late).seed_from_earlier


@pytest.mark.parametrize(
    "call, code, field",
    [
        (
            lambda td, e, m, w: create_weekend(td, "  ", e, slug="x"),
            "weekend_name_required",
            "name",
        ),
        (lambda td, e, m, w: create_weekend(td, "X" * 201, e), "text_too_long", "name"),
        (
            lambda td, e, m, w: create_weekend(td, "X", e, slug="Not a slug!"),
            "weekend_bad_slug",
            "slug",
        ),
        (
            lambda td, e, m, w: create_weekend(td, "X", e, slug="spring"),
            "weekend_slug_taken",
            "slug",
        ),
        (
            lambda td, e, m, w: create_weekend(td, "X", None, slug="x"),
            "weekend_needs_event",
            "tournament",
        ),
        (
            lambda td, e, m, w: create_weekend(td, "X", e, slug="x"),
            "weekend_event_taken",
            "tournament",
        ),
        (lambda td, e, m, w: add_event(w, e, td), "weekend_event_taken", "tournament"),
        (lambda td, e, m, w: add_event(w, m, td, position="9"), "weekend_bad_position", "position"),
        (lambda td, e, m, w: add_event(w, m, td, position="x"), "weekend_bad_position", "position"),
        (lambda td, e, m, w: add_event(w, m, td, position="0"), "weekend_bad_position", "position"),
        (lambda td, e, m, w: move_event(w, e, "2", td), "weekend_bad_position", "position"),
        (lambda td, e, m, w: move_event(w, m, "1", td), "weekend_not_an_event", "tournament"),
        (lambda td, e, m, w: remove_event(w, m, td), "weekend_not_an_event", "tournament"),
        (lambda td, e, m, w: set_seeding(w, None, True, td), "weekend_not_an_event", "tournament"),
    ],
)
def test_bad_input_is_refused_at_its_field_and_changes_nothing(
    td, pair_of_events, call, code, field
):
    early, main = pair_of_events
    w = create_weekend(td, "Spring Weekend", early, slug="spring")
    before = (
        list(Weekend.objects.values_list("slug", flat=True)),
        list(WeekendEvent.objects.values_list("tournament_id", "position", "seed_from_earlier")),
        AuditEvent.objects.count(),
    )
    with pytest.raises(ServiceError) as err:
        call(td, early, main, w)
    assert err.value.code == code and err.value.field == field
    after = (
        list(Weekend.objects.values_list("slug", flat=True)),
        list(WeekendEvent.objects.values_list("tournament_id", "position", "seed_from_earlier")),
        AuditEvent.objects.count(),
    )
    assert after == before


def test_only_a_director_of_every_event_may_group_them(td, pair_of_events, rating_list):
    early, main = pair_of_events
    only_early = make_director(early, "td-early")
    keeper = make_director(main, "keeper-x")
    main.directors.remove(keeper)
    main.scorekeepers.add(keeper)
    with pytest.raises(ServiceError) as err:
        create_weekend(keeper, "X", main, slug="x")
    assert err.value.code == "not_allowed"
    w = create_weekend(only_early, "Spring", early, slug="spring")
    for call in (
        lambda: add_event(w, main, only_early),
        lambda: add_event(w, main, keeper),
        lambda: add_event(w, main, _anon()),
    ):
        with pytest.raises(ServiceError) as err:
            call()
        assert err.value.code == "not_allowed"
    add_event(w, main, td)
    rating_list.officers.add(only_early)
    for who in (only_early, keeper):
        for call in (
            lambda who=who: move_event(w, main, "1", who),
            lambda who=who: remove_event(w, main, who),
            lambda who=who: set_seeding(w, main, True, who),
        ):
            with pytest.raises(ServiceError) as err:
                call()
            assert err.value.code == "not_allowed"
    with pytest.raises(ServiceError) as err:
        submit_weekend(w, rating_list, actor=only_early)
    assert err.value.code == "not_allowed"
    assert order(w) == ["Early Bird", "Main Event"]
    assert not RatedEvent.objects.exists()


def _anon():
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


def test_a_weekend_rates_in_its_order_and_equals_submitting_by_hand(
    td, pair_of_events, rating_list
):
    early, main = pair_of_events
    w = make_weekend(td, early, main)
    submit_weekend(w, rating_list, actor=td)
    weekend_order = ratings(rating_list)
    events = list(RatedEvent.objects.filter(rating_list=rating_list))
    assert [e.name.split(" - ")[0] for e in events] == ["Early Bird", "Main Event"]
    assert [e.sequence for e in events] == [1, 2]
    assert {e.date for e in events} == {DAY}

    # swapped: the main event first; the ratings change
    move_event(w, main, "1", td)
    submit_weekend(w, rating_list, actor=td)
    swapped = ratings(rating_list)
    assert swapped != weekend_order
    events = list(RatedEvent.objects.filter(rating_list=rating_list))
    assert [e.name.split(" - ")[0] for e in events] == ["Main Event", "Early Bird"]

    # by hand, one after another in the weekend's order, on a fresh list: the same ratings
    from ratings.services import create_rating_list

    by_hand = create_rating_list("By hand", slug="by-hand")
    by_hand.officers.add(td)
    for t in (main, early):  # the weekend's order now
        submit_divisions(list(t.divisions.all()), by_hand, actor=td)
    assert ratings(by_hand) == swapped
    # and submitting them by hand in the wrong order still rates in the weekend's order
    reverse = create_rating_list("Reverse", slug="reverse")
    reverse.officers.add(td)
    for t in (early, main):
        submit_divisions(list(t.divisions.all()), reverse, actor=td)
    assert ratings(reverse) == swapped
    # re-rating from scratch honours the order too
    rerate_list(reverse, datetime.date(2000, 1, 1))
    assert ratings(reverse) == swapped


def test_moving_a_rated_event_marks_its_list_for_rerating(td, pair_of_events, rating_list):
    early, main = pair_of_events
    w = make_weekend(td, early, main)
    submit_weekend(w, rating_list, actor=td)
    move_event(w, main, "1", td)
    rating_list.refresh_from_db()
    assert rating_list.dirty_from == DAY
    assert dict(RatedEvent.objects.values_list("division__tournament__name", "sequence")) == {
        "Main Event": 1,
        "Early Bird": 2,
    }
    rerate_list(rating_list)
    again = ratings(rating_list)
    submit_weekend(w, rating_list, actor=td)
    assert ratings(rating_list) == again


def test_a_later_event_seeds_from_the_earlier_results_when_its_rule_says_so(
    td, pair_of_events, rating_list
):
    early, main = pair_of_events
    w = make_weekend(td, early, main)
    seeds_before = dict(
        Entry.objects.filter(division__tournament=main).values_list("player__name", "seed_rating")
    )
    set_seeding(w, main, True, td)
    submit_weekend(w, rating_list, actor=td)
    early_results = {
        h.player.name: h.after
        for h in RatedEvent.objects.get(division__tournament=early).results.select_related("player")
    }
    seeds_after = dict(
        Entry.objects.filter(division__tournament=main).values_list("player__name", "seed_rating")
    )
    assert seeds_after == early_results != seeds_before
    event = AuditEvent.objects.filter(action="submit_weekend", tournament=main).get()
    assert len(event.after["seeded"]) == sum(
        1 for n in seeds_before if seeds_before[n] != early_results[n]
    )


def test_events_out_of_date_order_are_refused_before_anything_is_rated(td, rating_list):
    friday = play("Friday", upsets=False, date=DAY)
    saturday = play("Saturday", upsets=True, date=DAY + datetime.timedelta(days=1))
    for t in (friday, saturday):
        t.directors.add(td)
    w = make_weekend(td, saturday, friday)
    with pytest.raises(ServiceError) as err:
        submit_weekend(w, rating_list, actor=td)
    assert err.value.code == "weekend_order_dates"
    assert not RatedEvent.objects.exists()
