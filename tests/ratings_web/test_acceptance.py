"""The issue's acceptance: after submit_ratings of naspa-2023-a.t to a new list, the list page,
the profile and the event's player page all show each player's new rating, equal to
``manage.py rate SLUG --json``'s ``new``."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from ratings.models import PlayerRating, RatingList
from tournament.interchange.imports import import_tsh
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def run_json(*args: str):
    out = StringIO()
    call_command(*args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_new_rating_on_list_profile_and_event_page(client, real_data):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    Tournament.objects.filter(pk=t.pk).update(published=True)
    # a new list: each player's rating before the event is their seed rating (nsa2008)
    run_json(
        "submit_ratings", t.slug, "--list", "fresh", "--create", "Fresh", "--date", "2023-07-01"
    )
    lst = RatingList.objects.get(slug="fresh")
    assert lst.system == "nsa2008"
    rows = run_json("rate", t.slug)
    div = t.divisions.get()
    entries = {e.number: e for e in div.entries.select_related("player")}
    listing = client.get("/ratings/fresh/").content.decode()  # one page: under 100 players
    assert len(rows) == len(entries) > 20
    for r in rows:
        e = entries[r["number"]]
        new = r["new"]
        assert PlayerRating.objects.get(rating_list=lst, player=e.player).rating == new
        # the list page: the player's row carries the new rating
        row = re.search(rf'<a href="/players/{e.player_id}/">.*?</tr>', listing, re.S)
        assert row and f'<td class="num">{new}</td>' in row.group(0), e.player.name
        # the profile: the rating on the list and the event's "after"
        profile = client.get(f"/players/{e.player_id}/").content.decode()
        assert re.search(rf'Fresh</a></td>\s*<td class="num">{new}\b', profile), e.player.name
        event = profile[profile.index("<h2>Events</h2>") :]
        assert (
            f'<td class="num up">{new}</td>' in event
            or f'<td class="num down">{new}</td>' in event
            or f'<td class="num">{new}</td>' in event
        )
        # the event's player page: the estimate after the last round is the new rating
        page = client.get(f"/t/{t.slug}/{div.slug}/player/{e.number}/").content.decode()
        assert re.search(rf"Estimate</dt><dd>{new}</dd>", page), e.player.name
        # ... and the rating on the division's list, the new rating once the event is on it
        assert f'<div id="list-rating"><dt>On Fresh</dt><dd>{new}</dd></div>' in page
        assert f'href="/players/{e.player_id}/"' in page
