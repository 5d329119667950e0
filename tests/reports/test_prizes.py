"""Prize facts from the games, and the prize list sheet."""

from __future__ import annotations

import pytest

from tournament.reports import (
    PrizeGame,
    ReportError,
    StandingLine,
    prizes_from,
    prizes_pdf,
)

from . import realdata
from .conftest import joined, pdf_pages


def _sides(players, through):
    """Every real game from each player's side: (score, own, opp, opp score, round)."""
    out = []
    for p in players:
        for r in range(1, through + 1):
            opp = p.opponents[r - 1]
            if opp:
                out.append((p.scores[r - 1], p.number, opp, players[opp - 1].scores[r - 1], r))
    return out


def test_specials_match_a_brute_force_over_the_real_games(players_2023):
    standings = realdata.standings(players_2023, 23)
    prizes = prizes_from(standings, realdata.prize_games(players_2023, 23))
    by = {}
    for p in prizes:
        by.setdefault(p.category, []).append(p)
    sides = _sides(players_2023, 23)
    high = max(s[0] for s in sides)
    assert {p.value for p in by["high game"]} == {high}
    assert {p.numbers[0] for p in by["high game"]} == {s[1] for s in sides if s[0] == high}
    high_loss = max(s[0] for s in sides if s[0] < s[3])
    assert {p.value for p in by["high loss"]} == {high_loss}
    combined = max(s[0] + s[3] for s in sides)
    assert [p.value for p in by["high combined"]] == [combined] * len(by["high combined"])
    assert all(len(p.numbers) == 2 for p in by["high combined"])
    rating = {p.number: p.rating for p in players_2023}
    wins = [s for s in sides if s[0] > s[3]]
    gap = max(rating[s[2]] - rating[s[1]] for s in wins if rating[s[2]] > rating[s[1]])
    assert {p.value for p in by["upset"]} == {gap}
    gains = {s.number: s.estimate - s.rating for s in standings}
    best_gain = max(gains.values())
    best = [n for n, g in gains.items() if g == best_gain]
    assert [p.numbers[0] for p in by["rating gain"]] == best


def test_places_follow_the_standings_and_class_prizes_skip_place_winners(players_2023):
    standings = realdata.standings(players_2023, 23)
    prizes = prizes_from(standings, [], places=3)
    places = [p for p in prizes if p.category == "place"]
    assert [p.numbers[0] for p in places] == [s.number for s in standings if s.rank <= 3]
    classes = [p for p in prizes if p.category == "class"]
    # default: the highest class (A, where the top-rated player is) plays for places only
    top_class = max(standings, key=lambda s: s.rating).player_class
    assert {p.label.split()[1] for p in classes} == {
        s.player_class for s in standings if s.player_class != top_class
    }
    for p in classes:
        cls = p.label.split()[1]
        best = next(s for s in standings if s.player_class == cls and s.rank > 3)
        assert p.numbers == (best.number,)
    # every class, two each, and place winners allowed too (not exclusive)
    both = prizes_from(standings, [], places=1, class_places=2, exclusive=False)
    class_a = [p for p in both if p.label.startswith("Class A")]
    assert [p.numbers[0] for p in class_a] == [
        s.number for s in standings if s.player_class == "A"
    ][:2]


def test_ties_share_a_place_and_a_special():
    standings = [
        StandingLine(1, 1, "A, A", 2, 0, 100, 1500),
        StandingLine(1, 2, "B, B", 2, 0, 100, 1400),
        StandingLine(3, 3, "C, C", 0, 2, -100, 1600),
        StandingLine(3, 4, "D, D", 0, 2, -100, 1700),
    ]
    games = [
        PrizeGame(1, 1, 500, 3, 450),
        PrizeGame(1, 2, 500, 4, 400),
        PrizeGame(2, 1, 420, 4, 370),
        PrizeGame(2, 2, 430, 3, 380),
    ]
    prizes = prizes_from(standings, games, places=1)
    assert [(p.label, p.numbers) for p in prizes if p.category == "place"] == [
        ("1st place (tie)", (1,)),
        ("1st place (tie)", (2,)),
    ]
    assert sorted(p.numbers[0] for p in prizes if p.category == "high game") == [1, 2]
    assert [p.numbers for p in prizes if p.category == "high loss"] == [(3,)]
    upset = [p for p in prizes if p.category == "upset"]
    assert [(p.numbers, p.value) for p in upset] == [((2,), 300)]


def test_unrated_players_are_left_out_of_upsets():
    standings = [
        StandingLine(1, 1, "New, Player", 1, 0, 50, 0),
        StandingLine(2, 2, "Old, Hand", 0, 1, -50, 2000),
    ]
    prizes = prizes_from(standings, [PrizeGame(1, 1, 400, 2, 350)])
    assert not [p for p in prizes if p.category == "upset"]


def test_bad_input_is_refused():
    s = [StandingLine(1, 1, "A, A", 1, 0, 10, 1500), StandingLine(2, 2, "B, B", 0, 1, -10, 1500)]
    with pytest.raises(ReportError, match="round 3: .*names player #7, who is not in"):
        prizes_from(s, [PrizeGame(3, 1, 400, 7, 300)])
    with pytest.raises(ReportError, match="player #1 A, A appears twice"):
        prizes_from(s + s[:1], [])
    with pytest.raises(ReportError, match="plays themself"):
        prizes_from(s, [PrizeGame(1, 1, 400, 1, 300)])
    with pytest.raises(ReportError, match="must not be negative"):
        prizes_from(s, [], places=-1)
    with pytest.raises(ReportError, match=r"class\(es\) Z"):
        prizes_from(s, [], class_places={"Z": 1})


def test_prize_list_pdf_names_every_winner(event, players_2023):
    standings = realdata.standings(players_2023, 23)
    prizes = prizes_from(standings, realdata.prize_games(players_2023, 23))
    pages = pdf_pages(prizes_pdf(event, "A", prizes, after_round=23))
    assert len(pages) == 1
    text = joined(pages[0])
    for p in prizes:
        assert p.label in text
        for number, name in zip(p.numbers, p.names, strict=True):
            assert f"#{number} {name}" in text
        assert p.detail in text
    assert "page 1 of 1" in pages[0]
    assert "Prize list after round 23" in text


def test_an_empty_prize_list_still_prints(event):
    pages = pdf_pages(prizes_pdf(event, "A", []))
    assert "No prizes to award yet" in pages[0]
