"""The season ladder: the pure core (tournament.clubs.ladder) and the acceptance test that the
ladder a season shows equals a recomputation from its games, for every preset scoring rule.

The recomputation below is written plainly from the Game rows of the club's nights (closed,
within the season's dates) and the rule's words in the issue, without calling ``ladder()``,
so a mistake in the core's selection of games or in its scoring shows as a difference.
"""

from __future__ import annotations

import datetime
import random

import pytest

from tournament.clubs import selectors
from tournament.clubs import services as cs
from tournament.clubs.ladder import PRESETS, LadderGame, LadderNight, Rule, ladder
from tournament.clubs.models import Night
from tournament.models import Game
from tournament.services.results import correct_player_result, record_result

NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "Di", 5: "Ed", 6: "Flo"}


def night(key, *games: tuple) -> LadderNight:
    return LadderNight(key, tuple(LadderGame(*g) for g in games))


def rows_by_player(rule: Rule, *nights: LadderNight) -> dict[int, object]:
    return {r.player: r for r in ladder(rule, nights, NAMES)}


# --- pure core --------------------------------------------------------------------------------


def test_a_win_a_loss_and_the_record():
    rows = rows_by_player(Rule(), night(1, (1, 2, 420, 380)))
    ann, bob = rows[1], rows[2]
    assert (ann.points, ann.wins, ann.losses, ann.spread, ann.nights, ann.games) == (
        2,
        1,
        0,
        40,
        1,
        1,
    )
    assert (bob.points, bob.wins, bob.losses, bob.spread, bob.nights, bob.games) == (
        0,
        0,
        1,
        -40,
        1,
        1,
    )
    assert (ann.rank, bob.rank) == (1, 2)


def test_loss_points_count_when_configured():
    rows = rows_by_player(Rule(win=3, loss=1), night(1, (1, 2, 420, 380)))
    assert (rows[1].points, rows[2].points) == (3, 1)


def test_a_bye_is_a_win_by_its_spread_without_margin_bonus():
    rule = Rule(margin_bonus=1, margin=50)
    rows = rows_by_player(rule, night(1, (1, None, 100)))
    ann = rows[1]
    assert (ann.points, ann.wins, ann.losses, ann.spread, ann.games) == (2, 1, 0, 100, 1)
    assert set(rows) == {1}


def test_a_forfeit_is_a_loss_by_its_spread():
    rows = rows_by_player(Rule(loss=0.5), night(1, (1, None, -50)))
    ann = rows[1]
    assert (ann.points, ann.wins, ann.losses, ann.spread) == (0.5, 0, 1, -50)


def test_a_tie_is_half_a_win_and_tie_points_for_both():
    rows = rows_by_player(Rule(win=2, tie=1), night(1, (1, 2, 400, 400)))
    for p in (1, 2):
        assert (rows[p].points, rows[p].wins, rows[p].losses, rows[p].spread) == (1, 0.5, 0.5, 0)
    assert rows[1].rank == rows[2].rank == 1


@pytest.mark.parametrize("spread, bonus", [(49, 0), (50, 1), (51, 1), (200, 1)])
def test_margin_bonus_from_exactly_the_margin(spread, bonus):
    rows = rows_by_player(Rule(margin_bonus=1, margin=50), night(1, (1, 2, 300 + spread, 300)))
    assert rows[1].points == 2 + bonus
    assert rows[2].points == 0  # the loser never gets a bonus


def test_margin_bonus_off_gives_nothing_for_a_big_win():
    rows = rows_by_player(Rule(margin_bonus=0, margin=0), night(1, (1, 2, 500, 300)))
    assert rows[1].points == 2


def test_attendance_counts_each_night_played_once():
    rule = Rule(attendance=1)
    rows = rows_by_player(
        rule, night(1, (1, 2, 400, 300), (1, 2, 300, 400)), night(2, (1, 3, 400, 300))
    )
    assert rows[1].nights == 2 and rows[1].points == 2 + 2 + 2  # two wins, two nights
    assert rows[2].nights == 1 and rows[2].points == 2 + 1
    assert rows[3].nights == 1 and rows[3].points == 1


def test_best_nights_count_for_points_but_every_game_for_the_record():
    rule = Rule(best_nights=2)
    nights = [
        night(1, (1, 2, 400, 300), (1, 3, 400, 300)),  # Ann 4 points
        night(2, (1, 2, 300, 400)),  # Ann 0
        night(3, (1, 3, 400, 300)),  # Ann 2
    ]
    ann = rows_by_player(rule, *nights)[1]
    assert ann.points == 6  # 4 + 2, the 0 night dropped
    assert (ann.wins, ann.losses, ann.spread, ann.nights, ann.games) == (3, 1, 200, 3, 4)
    assert rows_by_player(Rule(), *nights)[1].points == 6  # the same here: 0 adds nothing
    assert rows_by_player(Rule(best_nights=1), *nights)[1].points == 4


def test_best_nights_drop_the_attendance_of_dropped_nights():
    rule = Rule(attendance=1, best_nights=1)
    ann = rows_by_player(rule, night(1, (1, 2, 400, 300)), night(2, (1, 2, 300, 400)))[1]
    assert ann.points == 3  # best night: 2 + 1


def test_min_nights_lists_the_unqualified_after_the_ranked_without_a_rank():
    rule = Rule(min_nights=2)
    rows = ladder(
        rule,
        [
            night(1, (1, 2, 500, 300), (3, 4, 400, 390)),
            night(2, (2, 3, 400, 300), (4, 5, 350, 300)),
        ],
        NAMES,
    )
    # Ann won big but played once: after everyone with two nights, unranked
    assert [(r.name, r.rank) for r in rows] == [
        ("Di", 1),
        ("Cy", 2),
        ("Bob", 3),
        ("Ann", None),
        ("Ed", None),
    ]
    assert [r.qualified for r in rows] == [True, True, True, False, False]


def test_min_nights_exactly_met_is_ranked():
    rows = rows_by_player(Rule(min_nights=1), night(1, (1, 2, 400, 300)))
    assert rows[1].rank == 1 and rows[2].rank == 2


def test_tiebreak_points_then_wins_then_spread_then_name():
    rule = Rule(win=2, tie=1, margin_bonus=1, margin=50)
    nights = [
        night(
            1,
            (5, 6, 460, 400),  # Ed: 3 points (win by 60), 1 win, +60
            (1, 2, 400, 400),
            (1, 2, 400, 400),
            (1, 2, 400, 400),  # Ann, Bob: 3 points, 1.5 wins
            (3, 4, 420, 400),  # Cy: 2 points
        ),
        night(
            2,
            (3, 6, 301, 300),  # Cy: 4 points, 2 wins, +21
            (4, 6, 330, 300),  # Di: 2 points, 1 win, +10 over the two nights
        ),
    ]
    rows = ladder(rule, nights, NAMES)
    assert [(r.name, r.points, r.wins, r.spread, r.rank) for r in rows] == [
        ("Cy", 4, 2, 21, 1),  # most points
        ("Ann", 3, 1.5, 0, 2),  # 3 points: more wins than Ed
        ("Bob", 3, 1.5, 0, 2),  # the same as Ann: shared rank, listed by name
        ("Ed", 3, 1, 60, 4),
        ("Di", 2, 1, 10, 5),
        ("Flo", 0, 0, -91, 6),
    ]


def test_same_points_and_wins_spread_decides():
    rows = ladder(Rule(), [night(1, (1, 3, 400, 390), (2, 4, 400, 300))], NAMES)
    assert [(r.name, r.points, r.wins, r.spread, r.rank) for r in rows] == [
        ("Bob", 2, 1, 100, 1),
        ("Ann", 2, 1, 10, 2),
        ("Cy", 0, 0, -10, 3),
        ("Di", 0, 0, -100, 4),
    ]


def test_shared_ranks_skip_the_places_they_take():
    rows = ladder(
        Rule(),
        [
            night(1, (1, 4, 400, 300), (2, 5, 400, 300), (3, 6, 350, 300)),
        ],
        NAMES,
    )
    assert [(r.name, r.rank) for r in rows] == [
        ("Ann", 1),
        ("Bob", 1),
        ("Cy", 3),
        ("Flo", 4),
        ("Di", 5),
        ("Ed", 5),
    ]


def test_names_missing_from_the_map_still_list_and_as_dict_keeps_whole_points():
    rows = ladder(Rule(), [night(1, (7, 8, 400, 300))], {})
    assert [r.name for r in rows] == ["#7", "#8"]
    d = rows[0].as_dict()
    assert d["points"] == 2 and isinstance(d["points"], int)
    assert set(d) == {
        "rank",
        "player",
        "name",
        "points",
        "wins",
        "losses",
        "spread",
        "nights",
        "games",
    }
    half = ladder(Rule(win=1, tie=0.5), [night(1, (1, 2, 400, 400))], NAMES)[0].as_dict()
    assert half["points"] == 0.5


def test_no_nights_no_rows():
    assert ladder(Rule(), [], NAMES) == []


def test_rule_round_trips_and_ignores_unknown_keys():
    for _, rule in PRESETS.values():
        assert Rule.from_dict(rule.as_dict()) == rule
    assert Rule.from_dict({"win": 3, "old_setting": 9}) == Rule(win=3)


# --- acceptance: the ladder equals a recomputation from the games, every preset ---------------


def recompute(season) -> list[tuple]:
    """The season's ladder straight from the Game rows, as the issue words the rules."""
    rule = season.rule
    per_player: dict[int, dict] = {}
    for n in Night.objects.filter(club=season.club):
        if n.closed_at is None or not season.start_date <= n.date <= season.end_date:
            continue
        tonight: dict[int, float] = {}
        games = Game.objects.filter(round__division__tournament=n.tournament).select_related(
            "player1__player", "player2__player"
        )
        for g in games:
            sides = [(g.player1.player, g.score1, g.score2 if g.player2_id else None)]
            if g.player2_id:
                sides.append((g.player2.player, g.score2, g.score1))
            for player, mine, theirs in sides:
                rec = per_player.setdefault(
                    player.pk,
                    {
                        "name": player.name,
                        "wins": 0.0,
                        "losses": 0.0,
                        "spread": 0,
                        "games": 0,
                        "nights": [],
                    },
                )
                rec["games"] += 1
                if theirs is None:  # bye (won by its score) or forfeit (lost by it)
                    rec["spread"] += mine
                    if mine >= 0:
                        rec["wins"] += 1
                        points = rule["win"]
                    else:
                        rec["losses"] += 1
                        points = rule["loss"]
                elif mine > theirs:
                    rec["wins"] += 1
                    rec["spread"] += mine - theirs
                    points = rule["win"]
                    if rule["margin_bonus"] and mine - theirs >= rule["margin"]:
                        points += rule["margin_bonus"]
                elif mine < theirs:
                    rec["losses"] += 1
                    rec["spread"] += mine - theirs
                    points = rule["loss"]
                else:
                    rec["wins"] += 0.5
                    rec["losses"] += 0.5
                    points = rule["tie"]
                tonight[player.pk] = tonight.get(player.pk, 0) + points
        for pk, points in tonight.items():
            per_player[pk]["nights"].append(points + rule["attendance"])
    table = []
    for pk, rec in per_player.items():
        best = sorted(rec["nights"], reverse=True)
        if rule["best_nights"]:
            best = best[: rule["best_nights"]]
        table.append(
            {
                "player": pk,
                "name": rec["name"],
                "points": round(sum(best), 4),
                "wins": rec["wins"],
                "losses": rec["losses"],
                "spread": rec["spread"],
                "nights": len(rec["nights"]),
                "games": rec["games"],
            }
        )
    table.sort(key=lambda r: (-r["points"], -r["wins"], -r["spread"], r["name"], r["player"]))
    ranked = [r for r in table if r["nights"] >= rule["min_nights"]]
    out = []
    for i, r in enumerate(ranked):
        same = i and (r["points"], r["wins"], r["spread"]) == (
            ranked[i - 1]["points"],
            ranked[i - 1]["wins"],
            ranked[i - 1]["spread"],
        )
        rank = out[-1][0] if same else i + 1
        out.append(
            (
                rank,
                *(r[k] for k in ("name", "points", "wins", "losses", "spread", "nights", "games")),
            )
        )
    for r in table:
        if r["nights"] < rule["min_nights"]:
            out.append(
                (
                    None,
                    *(
                        r[k]
                        for k in ("name", "points", "wins", "losses", "spread", "nights", "games")
                    ),
                )
            )
    return out


def shown(season) -> list[tuple]:
    return [
        (r.rank, r.name, r.points, r.wins, r.losses, r.spread, r.nights, r.games)
        for r in selectors.season_ladder(season)
    ]


def play(night, rng: random.Random, *, tie: bool = False) -> None:
    """Draw and score every game of the night with random scores (one tie if asked)."""
    division = night.tournament.divisions.get()
    for _ in range(night.games):
        number = cs.pair_next_game(night, actor="test")
        for g in Game.objects.filter(
            round__division=division, round__number=number, player2__isnull=False
        ).select_related("player1"):
            a = rng.randint(280, 520)
            b = a if tie else rng.choice([rng.randint(280, 520), a - 50, a + 49, a - 51])
            tie = False
            record_result(division, number, g.player1.number, a, b, actor="test")


@pytest.fixture
def season_club(db):
    rng = random.Random(2026)
    club = cs.create_club(name="Ladder Club", slug="ladder", actor="setup")
    members = [f"Player {c}" for c in "ABCDEFGHIJ"]
    for name in members:
        cs.add_member(club, name, actor="setup")
    season = cs.create_season(
        club, name="2025", start_date="2025-01-01", end_date="2025-06-30", actor="setup"
    )
    cs.create_season(
        club, name="2024", start_date="2024-01-01", end_date="2024-12-31", actor="setup"
    )
    first = datetime.date(2025, 1, 7)
    regulars = members[:4]
    for week in range(12):  # 12 closed nights: best-ten drops two for the regulars
        count = 3 if week == 4 else rng.randint(1, 4)  # odd numbers of players: byes
        others = rng.sample(members[4:], count)
        guests = ["Visiting Guest"] if week == 3 else []
        n = cs.create_night(
            club,
            date=first + datetime.timedelta(weeks=week),
            players=regulars + others,
            guests=guests,
            games=rng.choice([2, 3]),
            draw="random,koth",
            actor="setup",
        )
        play(n, rng, tie=week in (2, 5))
        if week == 4:  # a forfeit in place of a bye
            bye = Game.objects.filter(
                round__division__tournament=n.tournament, player2__isnull=True
            ).select_related("player1", "round")
            g = bye.first()
            if g is not None:
                correct_player_result(
                    n.tournament.divisions.get(),
                    g.round.number,
                    g.player1.number,
                    -50,
                    reason="no-show",
                    actor="setup",
                )
        cs.close_night(n, actor="setup")
    # must not count: an open night in the season, a reopened one, and nights outside it
    open_night = cs.create_night(
        club, date="2025-04-01", players=members[:6], games=1, actor="setup"
    )
    play(open_night, rng)
    reopened = cs.create_night(club, date="2025-04-08", players=members[:4], games=1, actor="setup")
    play(reopened, rng)
    cs.close_night(reopened, actor="setup")
    cs.reopen_night(reopened, actor="setup", reason="a score to check")
    for day in ("2024-12-31", "2025-07-01"):
        outside = cs.create_night(
            club, date=day, players=members[:2] + ["Only Outside"], games=1, actor="setup"
        )
        play(outside, rng)
        cs.close_night(outside, actor="setup")
    return season


def test_the_ladder_equals_a_recomputation_from_the_games_for_every_preset(season_club):
    # the setup has what the ladder must handle
    games = Game.objects.filter(round__division__tournament__club_night__club=season_club.club)
    assert games.filter(player2__isnull=True, score1__gt=0).exists()  # byes
    assert games.filter(player2__isnull=True, score1__lt=0).exists()  # a forfeit
    assert any(g.score1 == g.score2 for g in games.filter(player2__isnull=False))  # a tie
    margins = {abs(g.score1 - g.score2) for g in games.filter(player2__isnull=False)}
    assert {49, 50, 51} <= margins  # wins just under, at and over the margin
    assert Night.objects.filter(club=season_club.club, closed_at__isnull=True).count() == 2

    points = {}
    for preset in PRESETS:  # one build for all presets: the setup takes seconds
        season = cs.update_season(season_club, preset=preset, actor="setup")
        assert season.rule == PRESETS[preset][1].as_dict()
        expected = recompute(season)
        assert shown(season) == expected, preset
        names = [row[1] for row in expected]
        assert "Only Outside" not in names  # played only outside the season's dates
        assert "Visiting Guest" in names
        played = {row[1]: row[6] for row in expected}
        assert played["Player A"] == 12, preset  # the open and reopened nights do not count
        points[preset] = tuple(row[2] for row in expected)
    assert len(set(points.values())) == len(PRESETS)  # each preset scores this season its way
    best_ten = cs.update_season(season_club, preset="best-ten", actor="setup")
    assert any(row[0] is None for row in shown(best_ten))  # the guest: one night, unranked


def test_a_configured_rule_and_another_season_equal_the_recomputation_too(season_club):
    season = cs.update_season(
        season_club,
        actor="setup",
        rule={
            "win": 3,
            "tie": 1.5,
            "loss": 0.5,
            "margin_bonus": 0.5,
            "margin": 100,
            "attendance": 0.25,
            "best_nights": 5,
            "min_nights": 6,
        },
    )
    assert season.preset == ""
    expected = recompute(season)
    assert shown(season) == expected
    assert any(row[0] is None for row in expected) and any(row[0] for row in expected)

    other = season_club.club.seasons.get(name="2024")
    rows = shown(other)
    assert rows == recompute(other)
    assert {r[1] for r in rows} == {"Player A", "Player B", "Only Outside"}
    assert all(r[6] == 1 for r in rows)
