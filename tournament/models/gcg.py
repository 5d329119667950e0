"""Game records: one GCG file per game, attached by a player of the game or a director."""

from __future__ import annotations

from django.db import models

from .core import Game


class GameRecord(models.Model):
    """A game's move-by-move record (GCG text as uploaded, checked by tournament.formats.gcg).

    Whether the public sees it is not stored here: it follows the tournament's
    ``records_private`` and its round's ``records_published`` (``is_public``), so turning the
    setting off shows every record at once and a record attached after publishing is public.
    """

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="record")
    text = models.TextField(help_text="the GCG file, decoded")
    file_name = models.CharField(max_length=200, blank=True)
    lexicon = models.CharField(max_length=40, blank=True)
    turns = models.PositiveIntegerField(default=0)
    attached_at = models.DateTimeField(auto_now=True)
    attached_by = models.CharField(max_length=100, blank=True)

    @property
    def is_public(self) -> bool:
        """Whether public pages and the API's reads may show it."""
        game_round = self.game.round
        private = game_round.division.tournament.records_private
        return not private or game_round.records_published is not None

    def __str__(self) -> str:
        return f"record of {self.game_id}"
