"""Fit the prize-chances game model on the real games in fixtures/ and write it to
``pairings/engine/game_model.json`` (committed, so every run of ``chances`` uses the same
numbers). Run again only when fixtures change: ``manage.py fit_game_model``.
"""

import json
import math
from pathlib import Path

from pairings.engine.simulate import MODEL_FILE, GameModel
from tournament.formats.tourney_js import parse_tourney_js, tourney_js_divisions
from tournament.formats.tsh import TshPlayer, read_t

from ..base import GibsonCommand

ROOT = Path(__file__).resolve().parents[3] / "fixtures"


def _games(players: list[TshPlayer]) -> list[tuple[int, int, int, int]]:
    """(rating a, rating b, score a, score b) once per real game (no byes, no forfeits)."""
    by_number = {p.number: p for p in players}
    out = []
    for p in players:
        for r, opp in enumerate(p.opponents):
            if not opp or opp <= p.number or opp not in by_number:
                continue
            q = by_number[opp]
            if r >= len(p.scores) or r >= len(q.scores) or r >= len(q.opponents):
                continue
            if q.opponents[r] != p.number:
                continue
            sa, sb = p.scores[r], q.scores[r]
            if sa is None or sb is None or (sa == 0 and sb == 0):
                continue
            out.append((p.rating or 0, q.rating or 0, sa, sb))
    return out


def real_games(root: Path = ROOT) -> tuple[list[tuple[int, int, int, int]], list[str]]:
    games: list[tuple[int, int, int, int]] = []
    sources = []
    for path in sorted((root / "tsh").glob("*.t")):
        games += _games(read_t(path))
        sources.append(f"tsh/{path.name}")
    for path in sorted((root / "feeds").glob("*.js")):
        data = parse_tourney_js(path.read_text(encoding="utf-8"), source=path.name)
        for _name, players in tourney_js_divisions(data):
            games += _games(players)
        sources.append(f"feeds/{path.name}")
    return games, sources


def fit(games: list[tuple[int, int, int, int]], source: str) -> GameModel:
    """Spread = slope * rating gap + noise: ``slope`` by least squares through 0 on the games
    of two rated players, ``sigma`` the noise's standard deviation; ties and the combined
    score over every game."""
    rated_games = [g for g in games if g[0] and g[1]]
    rated = [(ra - rb, sa - sb) for ra, rb, sa, sb in rated_games]
    sxx = sum(g * g for g, _ in rated) or 1
    slope = sum(g * s for g, s in rated) / sxx
    sigma = math.sqrt(sum((s - slope * g) ** 2 for g, s in rated) / max(1, len(rated) - 1))
    ties = sum(1 for *_, sa, sb in games if sa == sb)
    combined = [sa + sb for *_, sa, sb in games]
    mean = sum(combined) / len(combined)
    sd = math.sqrt(sum((c - mean) ** 2 for c in combined) / max(1, len(combined) - 1))
    return GameModel(
        sigma=round(sigma, 2),
        confidence=fit_confidence(rated_games),
        slope=round(slope, 4),
        tie_rate=round(ties / len(games), 5),
        combined_mean=round(mean, 1),
        combined_sd=round(sd, 1),
        games=len(games),
        source=source,
    )


def fit_confidence(games: list[tuple[int, int, int, int]], system: str = "nsa2008") -> float:
    """The k (0.50..1.50, step 0.01) under which Phi(k * Phi^-1(p)) best predicts the wins of
    the games of two rated players (maximum likelihood, ties half), p the expectancy of
    ``system`` (the one the calibration replays use). Fitted on games only, never on how
    events ended, so the calibration that scores the chances is not tuned on its answer."""
    from statistics import NormalDist

    from ratings.engine.model import RatedPlayer
    from ratings.engine.systems import get_system

    sys_ = get_system(system)
    inv, cdf = NormalDist().inv_cdf, NormalDist().cdf
    data = []
    for ra, rb, sa, sb in games:
        p = sys_.expected_score(RatedPlayer(0, ra), RatedPlayer(1, rb))
        z = inv(min(max(p, 1e-9), 1 - 1e-9))
        data.append((z, 1.0 if sa > sb else 0.5 if sa == sb else 0.0))
    if not data:
        return 1.0

    def loss(k: float) -> float:
        total = 0.0
        for z, y in data:
            q = min(max(cdf(k * z), 1e-9), 1 - 1e-9)
            total -= y * math.log(q) + (1 - y) * math.log(1 - q)
        return total

    return min((k / 100 for k in range(50, 151)), key=loss)


class Command(GibsonCommand):
    help = "Fit the prize-chances game model on the real games in fixtures/ and write it."

    def add_arguments(self, parser):
        parser.add_argument("--out", default=str(MODEL_FILE), help="default: %(default)s")
        parser.add_argument("--dry-run", action="store_true", help="print only")

    def handle(self, *args, **opts):
        games, sources = real_games()
        if not games:
            raise ValueError(f"no real games found under {ROOT}")
        model = fit(games, ", ".join(sources))
        data = model.to_json()
        if not opts["dry_run"]:
            Path(opts["out"]).write_text(json.dumps(data, indent=2) + "\n")
        if opts["json"]:
            self.emit_json(data)
        else:
            self.stdout.write(json.dumps(data, indent=2))
