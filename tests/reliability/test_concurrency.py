"""Many writers at one moment, in separate processes, on the real test database.

Each writer is a process that loads Django first and then waits for a release file, so all of
them write at the same instant (tests/reliability/child.py). On PostgreSQL (the suite's second
run in CI) these are the row locks doing their work; on SQLite the same tests check that its
one write lock refuses the others cleanly (``already_recorded`` or ``database_busy``), never
with a traceback.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests import warm
from tests.conftest import REPO
from tests.core.test_celery_redis import database_url
from tournament import services
from tournament.models import AuditEvent, Game, Seat

pytestmark = pytest.mark.django_db(transaction=True)

POSTGRES = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
TRIALS = 20
WRITERS = 8
# SQLite: a writer that waited out the busy timeout is refused with database_busy
CLEAN_REFUSALS = {"already_recorded", "database_busy"}


def child_env() -> dict[str, str]:
    """The writers' environment: the TEST database, no Redis, settings of a real install."""
    return {
        **os.environ,
        "DATABASE_URL": database_url(),
        "GIBSON_SECRET_KEY": "reliability-test",
        "REDIS_URL": "",
        "PYTHONPATH": str(REPO),
    }


class Writers:
    """N writer processes running one plan each, step by step, released together per step."""

    def __init__(self, folder: Path, plans: list[list[dict[str, Any]]]) -> None:
        self.folder = folder
        self.plans = plans
        folder.mkdir(parents=True, exist_ok=True)
        self.procs = []
        # forked from a warm parent (tests/warm.py): eight processes of their own, each with
        # its own connection, without eight Django starts contending for two cores
        env = child_env()
        parent = warm.warm_for(env)
        for i, plan in enumerate(plans):
            path = folder / f"plan-{i}.json"
            path.write_text(json.dumps(plan), encoding="utf-8")
            self.procs.append(
                parent.spawn(
                    [str(folder), str(i), str(path)],
                    env,
                    folder / f"writer-{i}.log",
                    module="tests.reliability.child",
                )
            )

    @staticmethod
    def output(proc: warm.Spawned) -> str:
        """What a writer printed (its traceback, if it ended early)."""
        assert proc.log is not None
        return proc.log.read_text() if proc.log.exists() else ""

    def _wait_ready(self, k: int, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        for i in range(len(self.plans)):
            while not (self.folder / f"ready-{k}-{i}").exists():
                if self.procs[i].poll() is not None:
                    pytest.fail(f"writer {i} ended early:\n{self.output(self.procs[i])}")
                if time.monotonic() > deadline:
                    pytest.fail(f"writer {i} never got ready for step {k}")
                time.sleep(0.005)

    def run(self) -> list[list[dict[str, Any]]]:
        """Release every step once all writers wait for it; the answers per step."""
        steps = len(self.plans[0])
        try:
            for k in range(steps):
                self._wait_ready(k)
                (self.folder / f"go-{k}").touch()
            for i, proc in enumerate(self.procs):
                proc.wait(timeout=120)
                assert proc.returncode == 0, f"writer {i}:\n{self.output(proc)}"
        finally:
            for proc in self.procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        answers: list[list[dict[str, Any]]] = [[] for _ in range(steps)]
        for i in range(len(self.plans)):
            lines = (self.folder / f"out-{i}.jsonl").read_text(encoding="utf-8").splitlines()
            for line in lines:
                answer = json.loads(line)
                answer["writer"] = i
                answers[answer["step"]].append(answer)
        return answers


def make_division(name: str, players: int, *, paired: bool = True):
    t = services.create_tournament(name=name)
    d = services.create_division(t, name="A", rounds=5)
    for n in range(1, players + 1):
        services.register_player(d, name=f"Player{n:03d}, Test", rating=1400 + 7 * n)
    if paired:
        games = [PlannedGame(2 * k + 1, 2 * k + 2, board=k + 1) for k in range(players // 2)]
        save_round_pairings(d, 1, games, system="manual", actor="test")
    return t, d


def no_crash(answers: list[dict[str, Any]]) -> None:
    crashes = [a for a in answers if "crash" in a]
    assert not crashes, crashes[0].get("trace", crashes[0])


def test_eight_writers_one_game_eight_games_and_corrections(tmp_path):
    """8 writer processes, released together at each step (one set of processes, as starting
    8 Django processes costs seconds on a small machine):

    - steps 0-19, one game each: exactly one result stored, 7 clean refusals naming it, one
      audit event. Writers disagree on the winner (even ones type from the first player's
      side, odd ones from the second's), so a lost update or "last write wins" shows as a
      stored result other than the one the winning writer was told was recorded;
    - step 20: 8 different games, all recorded;
    - step 21: 8 corrections of one game, applied one after the other: each audited "before"
      is exactly the scores it replaced.
    """
    _, d = make_division("Race", 2 * TRIALS + 2 * WRITERS)
    corrected = 2 * TRIALS + 1  # the first game of step 20, corrected at step 21
    plans = []
    for i in range(WRITERS):
        plan = []
        for k in range(TRIALS):
            first, second = 2 * k + 1, 2 * k + 2
            me = first if i % 2 == 0 else second
            plan.append(
                {
                    "action": "record",
                    "division": d.pk,
                    "round": 1,
                    "player": me,
                    "score": 350 + i,
                    "opp_score": 400,
                }
            )
        plan.append(
            {
                "action": "record",
                "division": d.pk,
                "round": 1,
                "player": 2 * TRIALS + 2 * i + 1,
                "score": 400 + i,
                "opp_score": 300,
            }
        )
        plan.append(
            {
                "action": "correct",
                "division": d.pk,
                "player": corrected,
                "score1": 410 + i,
                "score2": 300,
            }
        )
        plans.append(plan)
    answers = Writers(tmp_path, plans).run()
    for k, trial in enumerate(answers[:TRIALS]):
        no_crash(trial)
        assert len(trial) == WRITERS
        won = [a for a in trial if a["ok"]]
        refused = [a for a in trial if not a["ok"]]
        assert len(won) == 1, (k, trial)
        game = Game.objects.get(round__division=d, round__number=1, player1__number=2 * k + 1)
        writer = won[0]["writer"]
        mine = 350 + writer
        expected = (mine, 400) if writer % 2 == 0 else (400, mine)
        assert (game.score1, game.score2) == expected, (k, writer)
        assert (won[0]["score1"], won[0]["score2"]) == expected
        codes = Counter(a["code"] for a in refused)
        assert set(codes) <= CLEAN_REFUSALS, codes
        if POSTGRES:  # PostgreSQL waits for the lock, then sees the result: never busy
            assert codes == {"already_recorded": WRITERS - 1}
        for a in refused:
            if a["code"] == "already_recorded":
                assert (a["params"]["score1"], a["params"]["score2"]) == expected
                assert str(expected[0]) in a["message"] and str(expected[1]) in a["message"]
        events = AuditEvent.objects.filter(action="record_result", object_id=str(game.pk))
        assert events.count() == 1

    eight = answers[TRIALS]
    no_crash(eight)
    assert all(a["ok"] for a in eight), eight
    for i in range(1, WRITERS):  # writer 0's game is corrected at step 21
        n = 2 * TRIALS + 2 * i + 1
        game = Game.objects.get(round__division=d, round__number=1, player1__number=n)
        assert (game.score1, game.score2) == (400 + i, 300)
    assert AuditEvent.objects.filter(action="record_result").count() == TRIALS + WRITERS

    corrections = answers[TRIALS + 1]
    no_crash(corrections)
    done = [a for a in corrections if a["ok"]]
    assert {a["code"] for a in corrections if not a["ok"]} <= {"database_busy"}
    if POSTGRES:
        assert len(done) == WRITERS
    game = Game.objects.get(round__division=d, round__number=1, player1__number=corrected)
    events = list(
        AuditEvent.objects.filter(action="correct_result", object_id=str(game.pk)).order_by("pk")
    )
    assert len(events) == len(done) >= 1
    chain = [(400, 300)] + [(e.after["score1"], e.after["score2"]) for e in events]
    for event, previous in zip(events, chain, strict=False):
        assert (event.before["score1"], event.before["score2"]) == previous
    assert (game.score1, game.score2) == chain[-1]


def _one_pairing(d, players: int) -> None:
    games = list(Game.objects.filter(round__division=d, round__number=1))
    seated = [g.player1_id for g in games] + [g.player2_id for g in games if g.player2_id]
    assert len(games) == players // 2
    assert len(seated) == len(set(seated)) == players
    assert Seat.objects.filter(round__division=d, round__number=1).count() == players


def test_four_processes_pairing_one_round(tmp_path):
    """Step 0, plain pairing: one pairing and 3 clean refusals (already paired). Step 1, with
    force (the `pair --force` command's path) on another division: each replaces the last
    whole, one pairing stands. Never an IntegrityError."""
    players = 16
    _, plain = make_division("Pairing", players, paired=False)
    _, forced = make_division("Pairing forced", players, paired=False)
    plans = [
        [
            {"action": "pair", "division": plain.pk, "round": 1, "system": "random"},
            {
                "action": "pair",
                "division": forced.pk,
                "round": 1,
                "system": "random",
                "force": True,
            },
        ]
        for _ in range(4)
    ]
    step, step_forced = Writers(tmp_path, plans).run()
    no_crash(step)
    won = [a for a in step if a["ok"]]
    codes = Counter(a["code"] for a in step if not a["ok"])
    assert len(won) == 1, step
    assert set(codes) <= {"round_already_paired", "database_busy"}, codes
    if POSTGRES:
        assert codes == {"round_already_paired": 3}
    assert AuditEvent.objects.filter(action="pair_round", tournament=plain.tournament).count() == 1
    _one_pairing(plain, players)

    no_crash(step_forced)
    assert {a["code"] for a in step_forced if not a["ok"]} <= {"database_busy"}
    assert any(a["ok"] for a in step_forced)
    _one_pairing(forced, players)
