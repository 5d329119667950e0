"""Two more readers of ``.t`` files read Gibson's as they read TSH's, at every stage of a round.

- e4c5/team_pairings, ``tsh/tsh.py`` ``tsh_import`` (commit 05fbd1b1; its ``importer`` command
  and live-data view read a TSH ``a.t`` with it): a line is read only when it is longer than
  30 characters, newline included (``if line and len(line) > 30``); the rating is the first
  run of one to four digits followed by a space (``re.search('[0-9]{1,4} ', line)``, which
  stops the program when there is none), the name what precedes it; the opponents are the words
  after the rating up to the first ``;``, the scores the words up to the second; the player's
  number is the line's (``seed + 1``), and its ``save_to_db`` finds a player's opponent as the
  list entry of that number. TSH pads the name to 22 columns and the rating to 5, so none of
  its lines is that short; Gibson padded names only to the longest one and did not pad
  ratings, so before round 1 a short-named player's line ("Baker, Bo 1700 ; ") was skipped
  and every later player took the number before theirs.
- jvc56/tournament_pairing_algorithms, ``driver.pl`` ``players_scores_from_tfile`` (commit
  147976dc; the COP pairing program's reader): each line must match
  ``^(\\D+)\\d+([^;]+);([^;]+)`` with something (a space will do) for the opponents and for the
  scores, or the program answers "match not found"; a player with more opponents than scores
  is refused ("scores and opponents are not the same size"), as it is refused in TSH's file of
  that stage. Without the space TSH writes before ``;`` ("RATING ; "), no line of a division
  before round 1 matched.
"""

from __future__ import annotations

import re

import pytest

from pairings.services.rounds import pair_round
from tests.exports.test_tsh2csv_reader import _replay_stages
from tournament.formats.tsh import parse_t
from tournament.interchange.exports import export_files
from tournament.interchange.imports import import_tsh
from tournament.models import Division
from tournament.services.results import record_result

pytestmark = pytest.mark.django_db


class Stopped(Exception):
    """The reader's program stops (Python's AttributeError on a failed ``re.search``)."""


def e4c5_tsh_import(text: str) -> list[dict]:
    """team_pairings' ``tsh_import``, reading lines as ``open(f)`` iterates them."""
    players: list[dict] = [{"name": "Bye", "seed": 0}]
    for seed, line in enumerate(text.splitlines(keepends=True)):
        if line and len(line) > 30:
            found = re.search("[0-9]{1,4} ", line)
            if found is None:
                raise Stopped(f"no rating in {line!r}")
            rating = found.group(0).strip()
            name = line[0 : line.index(rating)].strip()
            data = line[line.index(rating) :].split(";")
            opponents = data[0].strip().split(" ")[1:]
            scores = data[1].strip().split(" ")
            players.append(
                {
                    "name": name,
                    "opponents": opponents,
                    "scores": scores,
                    "seed": seed + 1,
                    "old_rating": rating,
                }
            )
    return players


def jvc56_players_scores(text: str) -> list[tuple[str, list[int], list[str]]] | str:
    """COP's ``players_scores_from_tfile`` up to the start-round cut: (name, opponent
    indexes, scores) per line, or the message it returns instead."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\D+)\d+([^;]+);([^;]+)", line)
        if not m or not all(m.groups()):
            return f"match not found for\n>{line}<\n"
        name, opponents_text, scores_text = m.groups()
        if "," in name:
            parts = name.split(",")
            if len(parts) != 2:
                return f"invalid name part for {line}\n"
            name = parts[1].strip() + " " + parts[0].strip()
        scores = scores_text.split()
        opponents = [int(v) - 1 for v in opponents_text.split()]
        if len(scores) != len(opponents):
            return f"scores and opponents are not the same size for {line}\n"
        out.append((name.strip(), opponents, scores))
    return out


def _short_names_stages(tmp_path):
    """Four players with short names (one unrated), as test_t_field_order enters them: before
    round 1, paired, partly scored, scored, and round 2 paired and scored."""
    path = tmp_path / "a.t"
    path.write_text(
        "Able, Ann 1800 ; ; lifeg 300\nBaker, Bo 1700 ;\nCole, Cy 1600 ;\nDee, Di 0 ;\n",
        encoding="utf-8",
    )
    t = import_tsh(path, rounds=3)
    division = Division.objects.get(tournament=t)
    yield "before round 1", export_files(t)["a.t"]
    pair_round(division, 1, system="koth", actor="test")
    yield "paired", export_files(t)["a.t"]
    record_result(division, 1, 1, 400, 350, actor="test")
    yield "partly scored", export_files(t)["a.t"]
    record_result(division, 1, 3, 380, 420, actor="test")
    yield "scored", export_files(t)["a.t"]
    pair_round(division, 2, system="koth", actor="test")
    yield "round 2 paired", export_files(t)["a.t"]
    record_result(division, 2, 1, 390, 391, actor="test")
    record_result(division, 2, 2, 450, 300, actor="test")
    yield "round 2 scored", export_files(t)["a.t"]


def _every_stage(real_data, tmp_path):
    for stage, text in _short_names_stages(tmp_path):
        yield f"short names, {stage}", text
    for stage, rnd, _d, text in _replay_stages(real_data):
        yield f"naspa-2023-a round {rnd}, {stage}", text


def test_team_pairings_reads_every_player_at_every_stage(real_data, tmp_path):
    stages = 0
    for stage, text in _every_stage(real_data, tmp_path):
        written = parse_t(text)
        read = e4c5_tsh_import(text)[1:]
        # every line read, in order: the list's n-th entry is player n, as save_to_db needs
        assert [p["seed"] for p in read] == [p.number for p in written], stage
        for ours, theirs in zip(written, read, strict=True):
            assert theirs["name"] == ours.name, stage
            assert theirs["old_rating"] == str(ours.rating), stage
            assert theirs["opponents"] == [str(o) for o in ours.opponents], stage
            assert [s for s in theirs["scores"] if s] == [str(s) for s in ours.scores], stage
        stages += 1
    assert stages == 6 + 10


def test_cop_reads_every_line_and_refuses_only_what_it_refuses_in_tsh_s_files(real_data, tmp_path):
    stages = 0
    for stage, text in _every_stage(real_data, tmp_path):
        written = parse_t(text)
        got = jvc56_players_scores(text)
        unscored = [p for p in written if len(p.scores) != len(p.opponents)]
        if unscored:
            # a game paired and not scored: refused as TSH's own line of that stage is
            assert isinstance(got, str) and got.startswith("scores and opponents"), stage
            continue
        assert not isinstance(got, str), (stage, got)
        assert [(o, s) for _n, o, s in got] == [
            ([v - 1 for v in p.opponents], [str(s) for s in p.scores]) for p in written
        ], stage
        stages += 1
    assert stages >= 6  # before round 1 and every scored round, of both events
