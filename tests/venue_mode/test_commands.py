"""Venue mode's commands refuse bad input with a clear message and a code, change nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tournament import services
from tournament.management.base import CommandFailure
from tournament.models import VenueLink

pytestmark = pytest.mark.django_db


def refused(*args: str) -> CommandFailure:
    with pytest.raises(CommandFailure) as failure:
        call_command(*args, stdout=StringIO())
    return failure.value


def test_venue_link_prints_the_token_once_and_refuses_a_second_live_link():
    t = services.create_tournament(name="Command Open")
    out = StringIO()
    call_command("venue_link", t.slug, "--venue", "Hall B", "--json", stdout=out)
    token = json.loads(out.getvalue())["token"]
    assert token.startswith("gv_") and VenueLink.objects.get(tournament=t).token_hash != token
    assert refused("venue_link", t.slug).code == "venue_link_exists"
    assert refused("venue_link", "no-such-event").code == "unknown_tournament"


def test_venue_reclaim_of_a_tournament_no_venue_holds_is_refused():
    t = services.create_tournament(name="Not Held")
    assert refused("venue_reclaim", t.slug).code == "venue_no_link"


def test_venue_take_from_an_unreachable_site_names_it_and_creates_nothing():
    failure = refused("venue_take", "http://127.0.0.1:9", "gv_whatever")
    assert failure.code == "venue_unreachable" and "127.0.0.1:9" in str(failure)
    from tournament.models import Tournament

    assert not Tournament.objects.exists()


def test_venue_push_and_release_of_a_tournament_not_taken_here_are_refused():
    t = services.create_tournament(name="Local Only")
    assert refused("venue_push", t.slug).code == "venue_not_held"
    assert refused("venue_release", t.slug).code == "venue_not_held"
    assert refused("venue_push", "no-such-event").code == "venue_not_held"
    out = StringIO()
    call_command("venue_status", stdout=out)
    assert "no tournament was taken" in out.getvalue()
