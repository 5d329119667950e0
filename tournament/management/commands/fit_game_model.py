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
    rated = [(ra - rb, sa - sb) for ra, rb, sa, sb in games if ra and rb]
    sxx = sum(g * g for g, _ in rated) or 1
    slope = sum(g * s for g, s in rated) / sxx
    sigma = math.sqrt(sum((s - slope * g) ** 2 for g, s in rated) / max(1, len(rated) - 1))
    ties = sum(1 for *_, sa, sb in games if sa == sb)
    combined = [sa + sb for *_, sa, sb in games]
    mean = sum(combined) / len(combined)
    sd = math.sqrt(sum((c - mean) ** 2 for c in combined) / max(1, len(combined) - 1))
    return GameModel(
        sigma=round(sigma, 2),
        slope=round(slope, 4),
        tie_rate=round(ties / len(games), 5),
        combined_mean=round(mean, 1),
        combined_sd=round(sd, 1),
        games=len(games),
        source=source,
    )


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
