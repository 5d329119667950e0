"""On screen: the boards a director features on the stream's overlays."""

from __future__ import annotations

from django.db import models

from .core import Division, Tournament


class FeaturedBoard(models.Model):
    """One board the director puts on the stream, in the order the overlays number them.

    A board of a division rather than a game: the featured board overlay follows board 1 of
    division A from round to round (the top board is the one streamed), so the director picks
    once, not every round. ``position`` is the overlay's number in its URL
    (``/t/SLUG/broadcast/board/1/``). Set only by ``services.broadcast.feature_boards``.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="featured_boards"
    )
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="+")
    board = models.PositiveIntegerField()
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["tournament", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "position"], name="featured_board_position"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tournament} #{self.position}: {self.division.name} board {self.board}"
