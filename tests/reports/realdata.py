"""Report inputs built from the real NASPA division files, the way the Django shell will.

A deliberately small `.t` reader of its own (name, rating, opponents, scores, extras), so the
report tests check the PDFs against the facts in the file and not against another module's
interpretation of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tournament.reports import (
    CardRound,
    PairingLine,
    PrizeGame,
    Scorecard,
    StandingLine,
    WallChartGame,
    WallChartPlayer,
)


@dataclass
class TPlayer:
    number: int
    name: str
    rating: int
    opponents: list[int]
    scores: list[int]
    extra: dict[str, list[str]] = field(default_factory=dict)

    def ints(self, key: str) -> list[int]:
        return [int(v) for v in self.extra.get(key, [])]


def read_t(path: Path) -> list[TPlayer]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    players: list[TPlayer] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head, *rest = line.split(";")
        tokens = head.split()
        i = len(tokens)
        while i > 0 and tokens[i - 1].lstrip("-").isdigit():
            i -= 1
        name = " ".join(tokens[:i]).rstrip(",").split(":")[0].strip()
        numbers = [int(t) for t in tokens[i:]]
        scores = [int(t) for t in rest[0].split()] if rest else []
        extra = {}
        for segment in rest[1:]:
            parts = segment.split()
            if parts:
                extra[parts[0]] = parts[1:]
        players.append(TPlayer(len(players) + 1, name, numbers[0], numbers[1:], scores, extra))
    return players


def opponent_score(players: list[TPlayer], p: TPlayer, r: int) -> int | None:
    opp = p.opponents[r - 1]
    if opp == 0:
        return None
    return players[opp - 1].scores[r - 1]


def scorecards(players: list[TPlayer], through: int, rounds_total: int) -> list[Scorecard]:
    """Cards pre-filled with scores through round ``through`` and pairings one round ahead."""
    cards = []
    for p in players:
        p12, boards = p.ints("p12"), p.ints("board")
        rounds = []
        for r in range(1, min(through + 1, rounds_total) + 1):
            opp = p.opponents[r - 1]
            scored = r <= through
            rounds.append(
                CardRound(
                    round=r,
                    first={1: True, 2: False}.get(p12[r - 1]) if p12 else None,
                    board=boards[r - 1] if boards and opp else None,
                    opponent_number=opp,
                    opponent_name=players[opp - 1].name if opp else "",
                    opponent_rating=players[opp - 1].rating if opp else None,
                    score=p.scores[r - 1] if scored else None,
                    opponent_score=opponent_score(players, p, r) if scored else None,
                )
            )
        lifeg = p.ints("lifeg")
        cards.append(
            Scorecard(
                number=p.number,
                name=p.name,
                rating=p.rating,
                rounds_total=rounds_total,
                rounds=rounds,
                career_games=lifeg[0] if lifeg else 100,
                url=f"https://gibson.example.org/e/spring-open/A/p/{p.number}",
                player_class=(p.extra.get("class") or [""])[0],
            )
        )
    return cards


def record(players: list[TPlayer], p: TPlayer, through: int) -> tuple[float, float, int]:
    wins = losses = 0.0
    spread = 0
    for r in range(1, through + 1):
        score = p.scores[r - 1]
        opp = p.opponents[r - 1]
        if opp == 0:
            spread += score
            if score > 0:
                wins += 1
            elif score < 0:
                losses += 1
            continue
        diff = score - players[opp - 1].scores[r - 1]
        spread += diff
        if diff > 0:
            wins += 1
        elif diff < 0:
            losses += 1
        else:
            wins += 0.5
            losses += 0.5
    return wins, losses, spread


def standings(players: list[TPlayer], through: int) -> list[StandingLine]:
    """Ranked by wins, losses, spread with competition ranks (enough for printing tests)."""
    rows = []
    for p in players:
        w, losses, s = record(players, p, through)
        newr = p.ints("newr")
        est = newr[through - 1] if newr and through else None
        rows.append((w, losses, s, p, est))
    rows.sort(key=lambda t: (-t[0], t[1], -t[2], -t[3].rating, t[3].number))
    out: list[StandingLine] = []
    for i, (w, losses, s, p, est) in enumerate(rows):
        if i and (w, losses, s) == (rows[i - 1][0], rows[i - 1][1], rows[i - 1][2]):
            rank = out[-1].rank
        else:
            rank = i + 1
        cls = (p.extra.get("class") or [""])[0]
        out.append(StandingLine(rank, p.number, p.name, w, losses, s, p.rating, est, cls))
    return out


def pairing_lines(players: list[TPlayer], r: int) -> list[PairingLine]:
    lines = []
    seen = set()
    for p in players:
        if p.number in seen:
            continue
        opp = p.opponents[r - 1]
        p12, boards = p.ints("p12"), p.ints("board")
        if opp == 0:
            lines.append(PairingLine(None, p.number, p.name))
            seen.add(p.number)
            continue
        o = players[opp - 1]
        first, second = (p, o) if (p12 and p12[r - 1] == 1) or not p12 else (o, p)
        lines.append(
            PairingLine(
                board=boards[r - 1] if boards else len(lines) + 1,
                first_number=first.number,
                first_name=first.name,
                second_number=second.number,
                second_name=second.name,
                first_rating=first.rating,
                second_rating=second.rating,
                first_decided=bool(p12) and p12[r - 1] in (1, 2),
            )
        )
        seen.update((p.number, opp))
    return lines


def wallchart(players: list[TPlayer], through: int) -> list[WallChartPlayer]:
    return [
        WallChartPlayer(
            p.number,
            p.name,
            p.rating,
            [
                WallChartGame(r, p.opponents[r - 1], p.scores[r - 1], opponent_score(players, p, r))
                for r in range(1, through + 1)
            ],
        )
        for p in players
    ]


def prize_games(players: list[TPlayer], through: int) -> list[PrizeGame]:
    games = []
    for p in players:
        for r in range(1, through + 1):
            opp = p.opponents[r - 1]
            if opp > p.number:
                games.append(
                    PrizeGame(r, p.number, p.scores[r - 1], opp, players[opp - 1].scores[r - 1])
                )
    return games
