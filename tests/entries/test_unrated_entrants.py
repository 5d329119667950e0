"""An entrant without a rating reads "unrated", never "a rating of 0" (issue 31): in the
refusal of a division's rating band and in the public list of entrants."""

from __future__ import annotations

import pytest

from tournament.errors import ServiceError
from tournament.services import online_entries as oe

from .conftest import enter


def test_an_unrated_entrant_outside_a_band_is_told_so_in_words(event):
    oe.set_division_rule(event.a, cap=3, rating_min=1200, actor=event.director)
    with pytest.raises(ServiceError) as exc:
        oe.submit_entry(event.a, name="Newcomer, Nell", email="nell@example.org")
    assert exc.value.code == "entries_band" and exc.value.params["rating"] == 0
    assert exc.value.message.startswith("an unrated player is outside division A's band")
    assert "rating of 0" not in exc.value.message


def test_the_public_list_of_entrants_says_unrated(client, event):
    enter(event.b, "Newcomer, Nell")
    page = client.get(f"/t/{event.tournament.slug}/entries/").content.decode()
    assert '<td>Newcomer, Nell</td><td class="num">unrated</td>' in page
