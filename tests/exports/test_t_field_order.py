"""A .t line as TSH's TFile::FormatLine writes it, at every stage of a round.

TSH writes "NAME RATING OPPONENTS; SCORES" (so "RATING ; " before a player is paired) and then
each extra field with values as "; KEY VALUES", keys in alphabetical order (a Perl ``sort``);
docs/formats.md cites the routine. Gibson wrote the fields in the order it held them (``p12``
before ``board``) and "RATING;" with no space before round 1.
"""

from __future__ import annotations

import pytest

from pairings.services.rounds import pair_round
from tournament.formats.tsh import TshPlayer, parse_t, write_t
from tournament.interchange.exports import export_files
from tournament.interchange.imports import import_tsh
from tournament.models import Division
from tournament.services.results import record_result

# Fields out of order on purpose: the file as a director might type it.
BEFORE_ROUND_1 = (
    "Able, Ann 1800 ; ; lifeg 300; class A\nBaker, Bo 1700 ;\nCole, Cy 1600 ; ; class B\n"
    "Dee, Di 0 ;\n"
)

STAGES = {
    "before round 1": [
        "Able, Ann               1800 ; ; class A; lifeg 300",
        "Baker, Bo               1700 ; ",
        "Cole, Cy                1600 ; ; class B",
        "Dee, Di                    0 ; ",
    ],
    "paired": [
        "Able, Ann               1800 2; ; board 1; class A; lifeg 300; p12 1",
        "Baker, Bo               1700 1; ; board 1; p12 2",
        "Cole, Cy                1600 4; ; board 2; class B; p12 1",
        "Dee, Di                    0 3; ; board 2; p12 2",
    ],
    "partly scored": [
        "Able, Ann               1800 2; 400; board 1; class A; lifeg 300; newr 1808; p12 1; "
        "rrank 1 1",
        "Baker, Bo               1700 1; 350; board 1; newr 1692; p12 2; rrank 2 4",
        "Cole, Cy                1600 4; ; board 2; class B; newr 1600; p12 1; rrank 3 2",
        "Dee, Di                    0 3; ; board 2; newr 0; p12 2; rrank 4 2",
    ],
    "scored": [
        "Able, Ann               1800 2; 400; board 1; class A; lifeg 300; newr 1808; p12 1; "
        "rrank 1 1",
        "Baker, Bo               1700 1; 350; board 1; newr 1692; p12 2; rrank 2 4",
        "Cole, Cy                1600 4; 380; board 2; class B; newr 1596; p12 1; rrank 3 3",
        "Dee, Di                    0 3; 420; board 2; newr 2000; p12 2; rrank 4 2",
    ],
}


def _keys(line: str) -> list[str]:
    return [part.split()[0] for part in line.split(";")[2:]]


@pytest.mark.django_db
def test_t_lines_at_every_stage_of_a_round_are_written_as_tsh_writes_them(tmp_path):
    path = tmp_path / "a.t"
    path.write_text(BEFORE_ROUND_1, encoding="utf-8")
    t = import_tsh(path, rounds=3)
    division = Division.objects.get(tournament=t)
    written = {}
    written["before round 1"] = export_files(t)["a.t"]
    pair_round(division, 1, system="koth", actor="test")
    written["paired"] = export_files(t)["a.t"]
    record_result(division, 1, 1, 400, 350, actor="test")
    written["partly scored"] = export_files(t)["a.t"]
    record_result(division, 1, 3, 380, 420, actor="test")
    written["scored"] = export_files(t)["a.t"]
    for stage, expected in STAGES.items():
        lines = written[stage].split("\n")
        assert lines.pop() == "", stage  # every line ends with a newline
        for line, want in zip(lines, expected, strict=True):
            assert _keys(line) == sorted(_keys(line)), (stage, line)  # key by key
            assert line == want, stage
        # and TSH's reader reads back what was written
        assert [p.number for p in parse_t(written[stage])] == [1, 2, 3, 4]


def test_keys_sort_as_perl_sorts_them_and_an_empty_field_is_left_out():
    p = TshPlayer(
        number=1,
        name="Able, Ann",
        member_id="",
        rating=1800,
        opponents=[],
        scores=[],
        fields={"rrank": ["1"], "p12": [], "board": ["3"], "Zone": ["x"], "lifeg": ["9"]},
    )
    assert write_t([p]) == "Able, Ann               1800 ; ; Zone x; board 3; lifeg 9; rrank 1\n"
