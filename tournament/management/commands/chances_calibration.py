"""Calibration of prize chances, measured on the real events in fixtures/.

Replays each real division from rounds R-6, R-3 and R-1 and scores P(1st) and P(cash) against
the real final standings (Brier score, log loss) for Gibson's simulation and two baselines
measured in the same run: COP's coin flip and "current standings hold". The rules and the
assumptions are in ``pairings.calibration`` and the manual's docs/chances.md.
"""

from pairings.calibration import CLIP, FORECASTERS, calibration, real_divisions
from pairings.chances import check_sims
from pairings.engine.simulate import load_game_model

from ..base import GibsonCommand

DEFAULT_SIMS = 5000
LABELS = {"gibson": "Gibson", "coin_flip": "coin flip", "standings_hold": "standings hold"}


class Command(GibsonCommand):
    help = (
        "Replay every real event in fixtures/ from rounds R-6, R-3 and R-1 and score the prize "
        "chances (P(1st), P(cash)) against what happened, beside the coin-flip and "
        "'current standings hold' baselines (Brier score, log loss)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--sims", default=DEFAULT_SIMS, help=f"default {DEFAULT_SIMS}")
        parser.add_argument("--seed", type=int, default=1, help="default 1")
        parser.add_argument(
            "--repeats-seen",
            action="store_true",
            help="let two players meet as often as the rounds played so far show (default: a "
            "second meeting is a repeat the pairing avoids)",
        )
        parser.add_argument(
            "--all-swiss",
            action="store_true",
            help="pair every remaining round Swiss with no repeat (default: NASPA's rules, "
            "the event's last round King of the Hill with repeats allowed)",
        )
        parser.add_argument(
            "--event", help="only the events whose name contains this (e.g. liwords-test22)"
        )

    def handle(self, *args, **opts):
        sims = check_sims(opts["sims"])
        divisions = real_divisions()
        if opts["event"]:
            divisions = [d for d in divisions if opts["event"] in d.label]
            if not divisions:
                raise ValueError(
                    f"--event {opts['event']!r}: no real event in fixtures/ matches "
                    "(names look like tsh/naspa-2023-a.t or feeds/raining2026.js A)"
                )
        result = calibration(
            divisions,
            load_game_model(),
            sims=sims,
            seed=opts["seed"],
            repeats_seen=opts["repeats_seen"],
            all_swiss=opts["all_swiss"],
        )
        if opts["json"]:
            self.emit_json(result)
            return
        w = self.stdout.write
        w(
            f"Prize chances calibration: {sims} simulations, seed {opts['seed']}, top "
            f"{result['prize_places']} in the money; Brier and log loss per player-forecast "
            f"(log loss with probabilities clipped to [{CLIP:g}, {1 - CLIP:g}]); lower is better"
        )
        w(
            "Remaining rounds: every one Swiss with no repeat (--all-swiss)"
            if opts["all_swiss"]
            else "Remaining rounds: Swiss with no repeat, the event's last round King of the Hill "
            "with repeats allowed (NASPA's rules; see docs/chances.md)"
        )
        head = f"{'event':<30} {'after':>5} {'n':>4}  {'forecaster':<15} "
        head += f"{'Brier 1st':>9} {'Brier cash':>10} {'LL 1st':>7} {'LL cash':>7}"
        w(head)
        for row in result["rows"]:
            for i, f in enumerate(FORECASTERS):
                s = row[f]
                lead = (
                    f"{row['event'][:30]:<30} {row['after_round']:>2}/{row['rounds']:<2} "
                    f"{row['players']:>4}"
                    if i == 0
                    else " " * 40
                )
                w(
                    f"{lead}  {LABELS[f]:<15} {s['brier_first']:>9.4f} {s['brier_cash']:>10.4f} "
                    f"{s['log_loss_first']:>7.4f} {s['log_loss_cash']:>7.4f}"
                )
        w("")
        groups = [("all", result["totals"]), ("rated", result["totals_rated"])]
        groups += list(result["totals_by_back"].items())
        for label, totals in groups:
            for f in FORECASTERS:
                s = totals[f]
                w(
                    f"{label + ' (' + str(s['forecasts']) + ' forecasts)':<40}  {LABELS[f]:<15} "
                    f"{s['brier_first']:>9.4f} {s['brier_cash']:>10.4f} "
                    f"{s['log_loss_first']:>7.4f} {s['log_loss_cash']:>7.4f}"
                )
        lost = [
            f"{LABELS[base]} on {k}"
            for base, measures in result["gibson_beats"].items()
            for k, won in measures.items()
            if not won
        ]
        if result["gibson_beats_both"]:
            w("Gibson's chances beat both baselines on every measure.")
        else:
            w("Gibson's chances do NOT beat both baselines everywhere: behind " + ", ".join(lost))
