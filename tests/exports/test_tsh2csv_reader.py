"""The ABSP's converter reads Gibson's ``.t`` files as it reads TSH's, at every stage of a round.

houtens/tsh2csv (``main.go``, commit 68a7f44d) turns a division's ``.t`` file into the ABSP's
rating CSV, ``Division,Round,Player1,Score1,Player2,Score2``. Its rules, replayed here line for
line (Go's ``regexp`` gives the same submatches as Python's ``re`` for this pattern):

- line 20: a result row must match
  ``^([A-Za-z,_\\-{}'\\(\\) ]+)(\\d+) ([0-9 ]+); ([0-9 \\-]+);.*board ([0-9 ]+);.*p12 ([0-9 ]+);``
  (name, rating, opponents, scores, then ``board`` and, later on the line, ``p12`` followed by
  another field); a row that does not match is skipped (lines 49-55, ``parseResults``).
  Gibson once wrote ``p12`` before ``board`` and the converter printed nothing;
- lines 306-308 (``process``): the player's id is the line's number in the file, counted from 1;
- lines 63-120: a round's opponent, score, board and first/second come from the fields' i-th
  values; a round paired but not scored has score 0;
- lines 210-284 (``processMatches``): for every round up to the highest seen and every id up to
  the highest seen, a missing row stops the program (``log.Fatalf``, line 234), as do two
  players of a game on different boards (line 266) or not one first and one second (line 271);
  opponent 0 is a bye and gives no row; the game is written with the player who went first
  first (``formatResult``, lines 193-206);
- line 312: the division is the file name without ``.t``, in capitals.

The reference is TSH's own files: the two real NASPA divisions give the same rows from the file
TSH wrote and from Gibson's export of it, and an event entered round by round gives, at each
stage, the rows of every game scored so far (and the 0-0 rows tsh2csv writes for a paired round
of a file that has later scores, as it would for TSH's file of that stage).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats.tsh import parse_t, read_t
from tournament.interchange.exports import export_files
from tournament.interchange.imports import import_tsh
from tournament.models import Division, First, Game
from tournament.services.results import record_result

pytestmark = pytest.mark.django_db

RX = re.compile(
    r"^([A-Za-z,_\-{}'\(\) ]+)(\d+) ([0-9 ]+); ([0-9 \-]+);.*board ([0-9 ]+);.*p12 ([0-9 ]+);"
)


class Fatal(Exception):
    """tsh2csv's ``log.Fatal``: the program stops and prints no CSV for the file."""


@dataclass
class Match:
    name: str = ""
    opp: str = ""
    score: int = 0
    table: int = 0
    start: int = 0
    round: int = 0


def _atoi(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0  # strconv.Atoi's error ignored: 0


def _first_last(name: str) -> str:
    parts = name.split(",")
    if len(parts) == 1:
        return name
    if len(parts) == 2:
        return (parts[1] + " " + parts[0]).lstrip(" ")
    return ""


def tsh2csv(file_name: str, text: str) -> list[str]:
    """The CSV lines tsh2csv prints for one ``.t`` file, or ``Fatal``."""
    mm: dict[tuple[int, int], Match] = {}
    for line_id, line in enumerate(text.split("\n"), start=1):
        res = RX.search(line)
        if res is None:
            continue
        name = _first_last(res.group(1).rstrip(" "))
        fields = [res.group(i).split() for i in (3, 4, 5, 6)]
        for i, opp in enumerate(fields[0]):
            mm[(i + 1, line_id)] = Match(name=name, round=i + 1, opp=opp)
        for attr, values in zip(("score", "table", "start"), fields[1:], strict=True):
            for i, value in enumerate(values):
                m = mm.setdefault((i + 1, line_id), Match())
                setattr(m, attr, _atoi(value))
    nr = max((r for r, _p in mm), default=0)
    np_ = max((p for _r, p in mm), default=0)
    division = file_name.removesuffix(".t").upper()
    seen: set[tuple[int, int]] = set()
    out = []
    for r in range(1, nr + 1):
        for p in range(1, np_ + 1):
            if (r, p) in seen:
                continue
            if (r, p) not in mm:
                raise Fatal(f"failed to match {r}-{p}, match not found")
            m1 = mm[(r, p)]
            seen.add((r, p))
            opp = _atoi(m1.opp)
            if opp == 0:
                continue  # a bye
            if (r, opp) in seen:
                continue
            if (r, opp) not in mm:
                raise Fatal("match not found")
            m2 = mm[(r, opp)]
            seen.add((r, opp))
            if m1.table != m2.table:
                raise Fatal("mismatched boards")
            if {m1.start, m2.start} != {1, 2}:
                raise Fatal("mismatched starts")
            if m1.start == 2:
                m1, m2 = m2, m1
            out.append(f"{division},{m1.round},{m1.name},{m1.score},{m2.name},{m2.score}")
    return out


def _games(division: Division, through: int) -> list[str]:
    """The rows the games scored in rounds 1..through should give: who went first first."""
    rows = []
    games = Game.objects.filter(round__division=division, round__number__lte=through)
    for g in games.select_related("round", "player1", "player2"):
        if g.player2 is None or g.score1 is None:
            continue  # a bye or forfeit: no row; a game not scored yet
        one = (_first_last(g.player1.name), g.score1)
        two = (_first_last(g.player2.name), g.score2)
        if g.first == First.PLAYER2:
            one, two = two, one
        rows.append(f"A,{g.round.number},{one[0]},{one[1]},{two[0]},{two[1]}")
    return sorted(rows)


@pytest.mark.parametrize("name", ["naspa-2023-a.t", "naspa-2006-b.t"])
def test_gibsons_export_gives_the_rows_tsh_s_own_file_gives(real_data, name, tmp_path):
    tsh_text = (real_data / name).read_text(encoding="utf-8")
    path = tmp_path / name
    path.write_text(tsh_text, encoding="utf-8")
    exported = export_files(import_tsh(path))[name]
    assert _outcome(name, exported) == _outcome(name, tsh_text)


def test_what_the_converter_makes_of_tsh_s_own_files(real_data):
    """naspa-2023-a.t: every game a row. naspa-2006-b.t: the converter stops (line 266) at a
    game whose two players TSH wrote on different boards, so Gibson's export of it must stop
    there too (the test above), keeping the boards as TSH wrote them."""
    rows = tsh2csv("naspa-2023-a.t", (real_data / "naspa-2023-a.t").read_text(encoding="utf-8"))
    players = read_t(real_data / "naspa-2023-a.t")
    games = sum(1 for p in players for o in p.opponents if o and o > p.number)
    assert len(rows) == games > 250
    assert rows[0].startswith("NASPA-2023-A,1,")
    assert _outcome("naspa-2006-b.t", (real_data / "naspa-2006-b.t").read_text()) == (
        "stopped: mismatched boards"
    )


def _outcome(name: str, text: str) -> list[str] | str:
    try:
        return tsh2csv(name, text)
    except Fatal as stop:
        return f"stopped: {stop}"


def _replay_stages(real_data):
    """naspa-2023-a.t's first three rounds entered as they were played (boards, who went
    first, scores), yielding (stage, round, division, the .t Gibson exports then)."""
    players = read_t(real_data / "naspa-2023-a.t")
    t = services.create_tournament(name="Reader Open")
    d = services.create_division(t, name="A", rounds=23)
    for p in players:
        services.register_player(d, name=p.name, rating=p.rating)
    yield "before round 1", 0, d, export_files(t)["a.t"]
    for rnd in (1, 2, 3):
        games, results = [], []
        for p in players:
            opp = p.opponents[rnd - 1]
            board = int(p.fields["board"][rnd - 1])
            if opp == 0:
                games.append(PlannedGame(p.number, 0, board=board))
            elif p.number < opp:
                first_second = (
                    (p.number, opp) if p.fields["p12"][rnd - 1] == "1" else (opp, p.number)
                )
                games.append(PlannedGame(*first_second, board=board))
                results.append((p.number, p.scores[rnd - 1], players[opp - 1].scores[rnd - 1]))
        save_round_pairings(d, rnd, games)
        yield "paired", rnd, d, export_files(t)["a.t"]
        half = len(results) // 2
        for number, score, opp_score in results[:half]:
            record_result(d, rnd, number, score, opp_score, actor="test")
        yield "partly scored", rnd, d, export_files(t)["a.t"]
        for number, score, opp_score in results[half:]:
            record_result(d, rnd, number, score, opp_score, actor="test")
        yield "scored", rnd, d, export_files(t)["a.t"]


def test_every_stage_of_a_round_reads_as_tsh_s_file_of_that_stage(real_data):
    stages = []
    for stage, rnd, d, text in _replay_stages(real_data):
        lines = text.split("\n")
        assert lines.pop() == ""
        has_score = [bool(p.scores) for p in parse_t(text)]
        # a row is read exactly when its player has a score, as a row TSH writes: "RATING ; "
        # or "RATING OPP; ; board ..." before the first score does not match the pattern
        assert [bool(RX.search(line)) for line in lines] == has_score, (stage, rnd)
        if not any(has_score):
            assert tsh2csv("a.t", text) == [], stage  # nothing printed, nothing stopped
        elif all(has_score):
            rows = tsh2csv("a.t", text)
            complete = rnd if stage == "scored" else rnd - 1
            assert sorted(r for r in rows if _round(r) <= complete) == _games(d, complete)
            # the round in play: its scored games, and 0-0 rows for the rest (line 63-120)
            current = sorted(r for r in rows if _round(r) == rnd)
            played = set(_games(d, rnd)) - set(_games(d, rnd - 1))
            assert played <= set(current)
            assert all(r.endswith(",0") for r in set(current) - played)
            paired = Game.objects.filter(
                round__division=d, round__number=rnd, player2__isnull=False
            )
            assert len(current) == paired.count()
        else:
            # round 1 partly scored: the unscored players' ids are missing between the scored
            # ones', and the converter stops (line 234), as on TSH's file of that stage
            with pytest.raises(Fatal):
                tsh2csv("a.t", text)
        stages.append((stage, rnd))
    assert len(stages) == 10


def _round(row: str) -> int:
    return int(row.split(",")[1])
