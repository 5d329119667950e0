"""A writer process for the reliability tests: loads Django first, then writes on a signal.

Run as ``python -m tests.reliability.child DIR INDEX PLAN.json`` with DATABASE_URL pointing at
the test database. For each step k of the plan it creates ``DIR/ready-k-INDEX``, waits for
``DIR/go-k`` (the parent creates it once every writer is ready, so all write at one moment),
runs the step and appends one JSON line to ``DIR/out-INDEX.jsonl``: ``{"ok": true, ...}``, a
clean refusal ``{"ok": false, "code": ..., "params": ...}``, or ``{"ok": false, "crash":
"<exception type>: ..."}`` for anything that would have been a traceback.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any


def _wait_for(path: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} never appeared")
        time.sleep(0.0005)


def _run(step: dict[str, Any], index: int) -> dict[str, Any]:
    from pairings.services.rounds import pair_round
    from tournament import services
    from tournament.models import Division, Game
    from tournament.web.errors import busy_refusal

    action = step["action"]
    division = Division.objects.select_related("tournament").get(pk=step["division"])
    with busy_refusal():  # as the console does: a busy SQLite database is a refusal
        if action == "record":
            game = services.record_result(
                division,
                step["round"],
                step["player"],
                step["score"],
                step["opp_score"],
                actor=f"writer-{index}",
            )
            return {"ok": True, "game": game.pk, "score1": game.score1, "score2": game.score2}
        if action == "correct":
            game = Game.objects.select_related("round__division__tournament").get(
                round__division=division, round__number=1, player1__number=step["player"]
            )
            services.correct_result(
                game,
                step["score1"],
                step["score2"],
                reason=f"writer {index}",
                actor=f"writer-{index}",
                seen=step.get("seen"),
            )
            return {"ok": True}
        if action == "pair":
            pair_round(
                division,
                step["round"],
                system=step["system"],
                force=step.get("force", False),
                actor=f"writer-{index}",
            )
            return {"ok": True}
    raise ValueError(f"unknown action {action!r}")


def main() -> None:
    folder, index, plan_path = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    import django

    django.setup()
    from tournament.errors import ServiceError

    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    out = folder / f"out-{index}.jsonl"
    for k, step in enumerate(plan):
        (folder / f"ready-{k}-{index}").touch()
        _wait_for(folder / f"go-{k}")
        try:
            answer = _run(step, index)
        except ServiceError as exc:
            answer = {"ok": False, **exc.as_dict()}
        except Exception as exc:  # a traceback a user would have seen
            answer = {
                "ok": False,
                "crash": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc()[-2000:],
            }
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"step": k, **answer}) + "\n")


if __name__ == "__main__":
    main()
