"""Federation files checked before they leave: NASPA (all.tsh), WESPA (.TOU), ABSP (CSV).

Each file is built by the existing writers (interchange.exports), read back as the federation
would read it, and checked against what that federation documents publicly. A check cites its
source in its docstring; the few checks no federation wrote down but every rating program
needs (a game has two players who each name the other) say so. Problems name the division,
the player, the round and what is wrong, so a director can fix the event, not the file.

Sources (public pages, as stored in the reference corpus):

- NASPA "Submitting tournament results" (scrabbleplayers.org/w/Submitting_tournament_results):
  the results file is one line per player, "Last, First[, Suffix][:NASPA id]" then the
  rating, one opponent number per round (0 for a bye) and, after ";", one score per round;
  a one-name player writes the name alone; the NASPA id is "AA..." or "CM..."; every player
  must be a current NASPA member ("rating data will not be accepted if any players are not
  members").
- NASPA Tournament Committee (scrabbleplayers.org/wiki, Tournament_Committee, 2009): "an event
  cannot be rated unless each division has at least four players [and] at least two rated
  players".
- WESPA Ratings Criteria (members.ozemail.com.au/~rjackman/WRC.html, Bob Jackman, WESPA
  ratings officer): results are forwarded "as a *.tou file in aupair format"; the format's
  reading rules are those of the public rating program cocoscrabble/ratings (its TouReader:
  the name is the leading tokens holding a letter, a score is the token modulo 1000, players
  are matched by name), described in tournament.formats.tou.
- ABSP: the Tournament Organisers' Guidelines (fourth edition, 2008) say results go to the ratings
  officer but publish no file layout or checks that we could find; the ABSP CSV is checked
  only for what any rating of played games needs (marked "structural").
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from tournament.errors import ServiceError
from tournament.formats.archive import parse_archive
from tournament.formats.errors import FormatError
from tournament.formats.tou import parse_tou
from tournament.formats.tsh import TshPlayer, parse_t
from tournament.models import Tournament

from .exports import ABSP_HEADER, render_export

#: A played game's score, docs/rules.md (0..1500); byes and forfeits are signed spreads.
MAX_GAME_SCORE = 1500
#: A .TOU score field holds three digits (the reader takes the token modulo 1000).
MAX_TOU_SCORE = 999
NASPA_MIN_PLAYERS = 4
NASPA_MIN_RATED = 2
NASPA_ID = re.compile(r"\A(AA|CM)\d+\Z")


@dataclass(frozen=True)
class Problem:
    """One thing a federation would refuse (or mis-rate) in a file."""

    division: str
    what: str
    player: str = ""
    round: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        where = [f"division {self.division}"] if self.division else []
        if self.player:
            where.append(self.player)
        if self.round is not None:
            where.append(f"round {self.round}")
        return f"{', '.join(where)}: {self.what}" if where else self.what


@dataclass(frozen=True)
class FederationFile:
    """A federation's file as the page offers it."""

    key: str
    federation: str
    format: str  # the export format it is rendered with (interchange.exports)
    label: str
    suffix: str
    content_type: str

    def file_name(self, tournament: Tournament) -> str:
        return "all.tsh" if self.format == "all.tsh" else f"{tournament.slug}.{self.suffix}"


FEDERATION_FILES: dict[str, FederationFile] = {
    f.key: f
    for f in (
        FederationFile(
            "naspa",
            "NASPA",
            "all.tsh",
            "TSH archive (config and every .t)",
            "tsh",
            "text/plain; charset=utf-8",
        ),
        FederationFile("wespa", "WESPA", "tou", "AuPair .TOU", "tou", "text/plain; charset=ascii"),
        FederationFile(
            "absp", "ABSP", "absp", "results CSV", "absp.csv", "text/csv; charset=utf-8"
        ),
    )
}


@dataclass
class BuiltFile:
    """A federation file built and checked: its bytes (None when it could not be built),
    its name and checksum, and every problem found."""

    spec: FederationFile
    name: str
    data: bytes | None
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.data is not None and not self.problems

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data or b"").hexdigest()


def federation_file(key: str) -> FederationFile:
    spec = FEDERATION_FILES.get(key)
    if spec is None:
        raise ServiceError(
            "unknown_federation_file",
            field="federation",
            value=str(key)[:40],
            choices=", ".join(FEDERATION_FILES),
        )
    return spec


def build_federation_file(
    tournament: Tournament, key: str, *, require_ids: bool = False
) -> BuiltFile:
    """Build the file with the existing writer and check it; a writer's refusal (a division
    too small for NASPA, no event date for WESPA) is itself a problem, with no file."""
    spec = federation_file(key)
    name = spec.file_name(tournament)
    try:
        data = render_export(tournament, spec.format).data
    except ServiceError as exc:
        return BuiltFile(spec, name, None, [Problem("", str(exc))])
    return BuiltFile(spec, name, data, CHECKS[key](data, require_ids))


# --- NASPA -----------------------------------------------------------------------------------


def _who(p: TshPlayer) -> str:
    return f"#{p.number} {p.name}"


def check_pairs(division: str, players: list[TshPlayer], rounds: int) -> list[Problem]:
    """Structural (every rating program needs it; the NASPA file's one-opponent-per-round
    layout states it): in each round a player has an opponent (0 for a bye) and a score, and
    the opponent names the player back in that round."""
    out: list[Problem] = []
    count = len(players)
    for p in players:
        for rnd in range(1, rounds + 1):
            opp = p.opponents[rnd - 1] if rnd <= len(p.opponents) else None
            if opp is None:
                out.append(Problem(division, "no pairing (unpaired)", _who(p), rnd))
                continue
            if rnd > len(p.scores) or p.scores[rnd - 1] is None:
                out.append(Problem(division, "no score", _who(p), rnd))
            if opp == 0:
                continue
            if not 1 <= opp <= count or opp == p.number:
                out.append(Problem(division, f"opponent {opp} is not another player", _who(p), rnd))
                continue
            other = players[opp - 1]
            back = other.opponents[rnd - 1] if rnd <= len(other.opponents) else None
            if back != p.number:
                said = "nobody" if back is None else ("a bye" if back == 0 else f"#{back}")
                out.append(
                    Problem(
                        division,
                        f"paired with #{opp} {other.name}, who is paired with {said} "
                        "(unpaired player)",
                        _who(p),
                        rnd,
                    )
                )
    return out


def check_scores(
    division: str, players: list[TshPlayer], rounds: int, maximum: int
) -> list[Problem]:
    """A played game's score is 0..``maximum`` (docs/rules.md's 0..1500 for NASPA and ABSP, a
    .TOU field's three digits for WESPA); only byes and forfeits carry signed spreads."""
    out = []
    for p in players:
        for rnd in range(1, min(rounds, len(p.scores), len(p.opponents)) + 1):
            score, opp = p.scores[rnd - 1], p.opponents[rnd - 1]
            if score is None or opp in (None, 0) or opp == p.number:
                continue
            if not 0 <= score <= maximum:
                out.append(
                    Problem(division, f"score {score} is out of range (0..{maximum})", _who(p), rnd)
                )
    return out


def check_naspa_division(
    division: str, players: list[TshPlayer], *, require_ids: bool = False
) -> list[Problem]:
    """NASPA's documented rules for one division's results (module docstring's sources):

    - at least four players and at least two rated players (Tournament Committee);
    - each name written "Last, First" (a one-name player alone), optionally ":ID" with an id
      of the form AA... or CM... (Submitting tournament results);
    - with ``require_ids`` (the director's choice: NASPA accepts only members, and an id is
      how a file names one unambiguously), every player carries a NASPA id;
    - pairings and scores as the file layout requires (check_pairs), scores in range.
    """
    out: list[Problem] = []
    if len(players) < NASPA_MIN_PLAYERS:
        out.append(
            Problem(
                division,
                f"{len(players)} players: NASPA rates divisions of at least {NASPA_MIN_PLAYERS}",
            )
        )
    rated = sum(1 for p in players if p.rating > 0)
    if rated < NASPA_MIN_RATED:
        out.append(
            Problem(
                division,
                f"{rated} rated player(s): NASPA rates divisions with at least {NASPA_MIN_RATED}",
            )
        )
    for p in players:
        name = p.name.strip()
        if " " in name and "," not in name:
            out.append(Problem(division, "name is not written 'Last, First'", _who(p)))
        if p.member_id and not NASPA_ID.match(p.member_id):
            out.append(
                Problem(division, f"NASPA id {p.member_id!r} is not AA... or CM...", _who(p))
            )
        if require_ids and not p.member_id:
            out.append(Problem(division, "no NASPA id (every player must be a member)", _who(p)))
    rounds = max((len(p.opponents) for p in players), default=0)
    out += check_pairs(division, players, rounds)
    out += check_scores(division, players, rounds, MAX_GAME_SCORE)
    return out


def check_naspa(data: bytes, require_ids: bool = False) -> list[Problem]:
    """all.tsh: every division's .t read back (leniently: all problems, not the first)."""
    try:
        config, files = parse_archive(data.decode("utf-8"))
        # config.tsh names each division's file: "division A a.t"
        divisions = {
            m.group(2): m.group(1)
            for m in re.finditer(r"^division\s+(\S+)\s+(\S+)\s*$", config, re.MULTILINE)
        }
        out = []
        for name, text in files.items():
            players = parse_t(text, source=name, check=False)
            division = divisions.get(name, name.removesuffix(".t"))
            out += check_naspa_division(division, players, require_ids=require_ids)
        return out
    except (FormatError, UnicodeDecodeError) as exc:
        return [Problem("", f"the file cannot be read back: {exc}")]


# --- WESPA -----------------------------------------------------------------------------------


def check_tou_division(division: str, players: list[TshPlayer]) -> list[Problem]:
    """A .TOU section as WESPA's rating program reads it (module docstring's sources):

    - each name holds a letter and is unique in its division, case aside (players are matched
      by name);
    - each round's opponent names the player back; a bye or forfeit is a game against oneself
      (parse_tou gives 0);
    - every score fits the three-digit field (0..999).
    """
    out: list[Problem] = []
    seen: dict[str, TshPlayer] = {}
    for p in players:
        key = p.name.strip().lower()
        if not re.search(r"[A-Za-z]", p.name):
            out.append(
                Problem(division, "name has no letter (the rating program skips it)", _who(p))
            )
        if key in seen:
            out.append(
                Problem(
                    division, f"same name as #{seen[key].number} (players match by name)", _who(p)
                )
            )
        seen.setdefault(key, p)
    rounds = max((len(p.opponents) for p in players), default=0)
    out += check_pairs(division, players, rounds)
    out += check_scores(division, players, rounds, MAX_TOU_SCORE)
    return out


def check_tou(data: bytes, require_ids: bool = False) -> list[Problem]:
    """A whole .TOU: ASCII, an ``*M`` header with a date, then each division's section."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return [Problem("", "the file is not ASCII (AuPair files are)")]
    try:
        _name, date, divisions = parse_tou(text)
    except FormatError as exc:
        return [Problem("", f"the file cannot be read back: {exc}")]
    out = [] if date is not None else [Problem("", "no '*M' header with the event's date")]
    for name, players in divisions:
        out += check_tou_division(name, players)
    return out


# --- ABSP ------------------------------------------------------------------------------------


def check_absp(data: bytes, require_ids: bool = False) -> list[Problem]:
    """The ABSP results CSV, structural checks only (the ABSP publishes no file checks we
    could cite): the header as written, each row a game between two different named players
    with whole-number scores in 0..1500 (docs/rules.md), no player twice in one round."""
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error) as exc:
        return [Problem("", f"the file cannot be read back: {exc}")]
    if not rows or rows[0] != ABSP_HEADER:
        return [Problem("", f"the header is not {','.join(ABSP_HEADER)}")]
    out: list[Problem] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(ABSP_HEADER):
            out.append(Problem("", f"line {line}: {len(row)} columns, not {len(ABSP_HEADER)}"))
            continue
        division, rnd, p1, s1, p2, s2 = row
        rnd_no = int(rnd) if rnd.isdigit() else None
        if rnd_no is None:
            out.append(Problem(division, f"line {line}: round {rnd!r} is not a number"))
        for name, score in ((p1, s1), (p2, s2)):
            if not name.strip():
                out.append(Problem(division, f"line {line}: a game without a player", "", rnd_no))
                continue
            value = int(score) if re.fullmatch(r"-?\d+", score) else None
            if value is None or not 0 <= value <= MAX_GAME_SCORE:
                out.append(
                    Problem(
                        division,
                        f"score {score} is out of range (0..{MAX_GAME_SCORE})",
                        name,
                        rnd_no,
                    )
                )
            key = (division, rnd, name.strip().lower())
            if key in seen:
                out.append(
                    Problem(
                        division,
                        f"plays twice in this round (lines {seen[key]} and {line})",
                        name,
                        rnd_no,
                    )
                )
            seen.setdefault(key, line)
        if p1.strip() and p1.strip().lower() == p2.strip().lower():
            out.append(Problem(division, "plays themself", p1, rnd_no))
    return out


CHECKS: dict[str, Callable[[bytes, bool], list[Problem]]] = {
    "naspa": check_naspa,
    "wespa": check_tou,
    "absp": check_absp,
}
