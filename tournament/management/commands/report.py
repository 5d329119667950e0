"""manage.py report: print-ready PDFs of a division (scorecards, pairings, standings, ...)."""

from __future__ import annotations

from tournament.selectors import division_by_name, tournament_by_slug

from ...reports.build import KINDS, build_report
from ...reports.files import check_target, write_atomically
from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "Write a division's scorecards, pairings, standings, wall chart or prize list as a PDF. "
        "Nothing is written when the report cannot be made (e.g. a round not yet paired)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="tournament slug")
        parser.add_argument("--division", help="division name (may be left out with one division)")
        parser.add_argument("--kind", required=True, choices=KINDS)
        parser.add_argument(
            "--round",
            type=int,
            help="pairings of / standings, wall chart, prizes after / scorecards through this "
            "round (default: the last paired round; scorecards: everything paired)",
        )
        parser.add_argument(
            "--per-page", type=int, default=2, help="scorecards per page: 1, 2 or 4"
        )
        parser.add_argument("--paper", help="a4 or letter (default: the tournament's paper)")
        parser.add_argument("--out", required=True, help="PDF file to write")

    def handle(self, *args, **opts):
        tournament = tournament_by_slug(opts["slug"])
        division = division_by_name(tournament, opts["division"])
        kind = opts["kind"]
        check_target(opts["out"])
        if kind == "scorecards":
            from ...reports.tasks import division_scorecards

            # run here (the file is named on this machine), through the task for its progress
            result = division_scorecards.apply(
                args=(tournament.slug, division.name, opts["out"]),
                kwargs={
                    "per_page": opts["per_page"],
                    "round_number": opts["round"],
                    "paper": opts["paper"],
                },
            ).get()
        else:
            report = build_report(
                division,
                kind,
                round_number=opts["round"],
                per_page=opts["per_page"],
                paper=opts["paper"],
            )
            write_atomically(opts["out"], report.pdf)
            result = {
                "file": opts["out"],
                "kind": kind,
                "division": division.name,
                "round": report.round,
                "pages": report.pages,
                "bytes": len(report.pdf),
            }
        if opts["json"]:
            self.emit_json(result)
            return
        what = {
            "scorecards": "scorecards",
            "pairings": "pairings",
            "standings": "standings",
            "wallchart": "wall chart",
            "prizes": "prize list",
        }[kind]
        where = f" round {result['round']}" if result["round"] is not None else ""
        self.stdout.write(
            f"{tournament.name} - division {division.name}{where}: {what}, "
            f"{result['pages']} page(s) -> {result['file']}"
        )
