"""What the API shows and accepts. Reads show what the public pages show: names, numbers,
ratings and results; never a player's email or phone, nor an entry's self-entry token."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError

from ratings.models import PlayerRating, RatingHistory, RatingList

from ..models import Division, Entry, Game, Player, Round, Tournament
from ..shapes import game_row, later_pairing_rows

# A database integer column holds this much; larger numbers are refused before any query.
INT_MAX = 2**31 - 1


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "description": "TSH's spread caps by round (item 0 = round 1; the last holds for later "
        "rounds); [] for no cap. spread_cap is the single cap, null when caps vary.",
    }
)
class SpreadCapsField(serializers.Field):
    """The tournament's caps as TSH's list (``[250]`` for one cap), read only."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: Tournament) -> list[int]:
        return value.spread_cap_list


class TournamentSerializer(serializers.ModelSerializer):
    divisions = serializers.SlugRelatedField(many=True, read_only=True, slug_field="slug")
    spread_caps = SpreadCapsField(source="*")

    class Meta:
        model = Tournament
        fields = [
            "slug",
            "name",
            "start_date",
            "end_date",
            "venue",
            "realm",
            "published",
            "max_rounds",
            "spread_cap",
            "spread_caps",
            "bye_spread",
            "forfeit_spread",
            "divisions",
        ]


class ClockLinkSerializer(serializers.Serializer):
    """Where the current round's clock is read: the seconds left change every second, so they
    are not in the division's cached read but at ``url`` (never cached, with the server's time)."""

    round = serializers.IntegerField(help_text="the division's last paired round")
    url = serializers.CharField(help_text="GET: the round clock (state, ends_at, server_now)")


class DivisionSerializer(serializers.ModelSerializer):
    # null for a division without a rating list; declared so, for clients typed from the schema
    rating_list = serializers.SlugRelatedField(read_only=True, slug_field="slug", allow_null=True)
    # The caps are the tournament's; a division read shows them so a client needs one call.
    spread_cap = serializers.IntegerField(
        source="tournament.spread_cap", read_only=True, allow_null=True
    )
    spread_caps = SpreadCapsField(source="tournament")
    clock = serializers.SerializerMethodField()

    class Meta:
        model = Division
        fields = [
            "slug",
            "name",
            "rounds",
            "prize_places",
            "rating_system",
            "rating_list",
            "spread_cap",
            "spread_caps",
            "clock",
        ]

    @extend_schema_field(ClockLinkSerializer(allow_null=True))
    def get_clock(self, division: Division) -> dict[str, Any] | None:
        """The current round's clock, null before round 1 is paired."""
        from django.db.models import Max
        from django.urls import reverse

        number = division.round_set.aggregate(last=Max("number"))["last"]
        if not number:
            return None
        url = reverse(
            "api:round_clock",
            kwargs={"slug": division.tournament.slug, "division": division.slug, "round": number},
        )
        return {"round": number, "url": url}


class EntrySerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="player.name", read_only=True)
    player_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = Entry
        fields = [
            "number",
            "name",
            "player_id",
            "seed_rating",
            "player_class",
            "withdrawn_round",
        ]


class SideSerializer(serializers.Serializer):
    """One side of a game: the entry's number and name in the division."""

    number = serializers.IntegerField()
    name = serializers.CharField(source="player.name")


class GameSerializer(serializers.ModelSerializer):
    round = serializers.IntegerField(source="round.number", read_only=True)
    player1 = SideSerializer(read_only=True)
    player2 = SideSerializer(read_only=True, allow_null=True)
    first = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = ["round", "board", "player1", "player2", "score1", "score2", "first"]

    def get_first(self, game: Game) -> int:
        """TSH's p12 value: 1 player1 went first, 2 player2, 0 unknown, 3 to draw, 4 drew."""
        return int(game.first)

    def to_representation(self, game: Game) -> dict[str, Any]:
        """The game as ``record_result --json`` prints it too (tournament.shapes): the fields
        above describe it for the schema, one function makes it for both faces."""
        return game_row(game)


class LaterPairingSerializer(serializers.Serializer):
    """A round paired after a corrected game's round, from the old result."""

    round = serializers.IntegerField()
    unscored = serializers.IntegerField(help_text="its games still without a result")


class CorrectedGameSerializer(GameSerializer):
    """A corrected game, with the later rounds that were paired from its old result."""

    later_pairings = LaterPairingSerializer(many=True, read_only=True)

    class Meta(GameSerializer.Meta):
        fields = [*GameSerializer.Meta.fields, "later_pairings"]

    def to_representation(self, game: Game) -> dict[str, Any]:
        return {**game_row(game), "later_pairings": later_pairing_rows(game.later_pairings)}


class RoundSerializer(serializers.ModelSerializer):
    games = GameSerializer(many=True, read_only=True)

    class Meta:
        model = Round
        fields = ["number", "games"]


class StandingsRowSerializer(serializers.Serializer):
    """A row as ``manage.py standings --json`` prints it."""

    rank = serializers.IntegerField(allow_null=True)
    number = serializers.IntegerField()
    name = serializers.CharField()
    wins = serializers.FloatField()
    losses = serializers.FloatField()
    spread = serializers.IntegerField()
    rating = serializers.IntegerField()
    estimate = serializers.IntegerField(allow_null=True)
    withdrawn = serializers.BooleanField()


class RoundProgressSerializer(serializers.Serializer):
    """The round in play: standings count every game recorded so far, these say which."""

    round = serializers.IntegerField()
    scored_round = serializers.IntegerField()
    games = serializers.IntegerField()
    games_in = serializers.IntegerField()
    byes = serializers.IntegerField(
        min_value=0, help_text="the round's byes, counted since it was paired"
    )
    forfeits = serializers.IntegerField(
        min_value=0, help_text="the round's forfeits, counted since it was paired"
    )
    text = serializers.CharField()


class StandingsSerializer(serializers.Serializer):
    after_round = serializers.IntegerField()
    # null when every paired round is complete
    in_progress = RoundProgressSerializer(allow_null=True)
    rows = StandingsRowSerializer(many=True)


class NeedConditionSerializer(serializers.Serializer):
    """One condition of an alternative. ``margin``: ``player``'s margin in their game still
    to play is from ``lo`` to ``hi``. ``behind``: ``player``'s margin stays below
    ``clamp(margin of player "of" + offset, lo, hi1)`` (they do not finish ahead of "of").
    ``bound``: the largest margin the game counts (the spread cap, or 500)."""

    kind = serializers.ChoiceField(choices=["margin", "behind"])
    player = serializers.IntegerField()
    lo = serializers.IntegerField()
    hi = serializers.IntegerField(required=False)
    of = serializers.IntegerField(required=False)
    offset = serializers.IntegerField(required=False)
    hi1 = serializers.IntegerField(required=False)
    bound = serializers.IntegerField()


class NeedSerializer(serializers.Serializer):
    """A prize place: ``clinched``, ``out`` or ``open``; when ``exact`` the player finishes
    there exactly when one alternative (all its conditions) holds, else each is enough."""

    place = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["clinched", "out", "open"])
    exact = serializers.BooleanField()
    text = serializers.CharField()
    alternatives = serializers.ListField(child=NeedConditionSerializer(many=True))


class PlayerNeedsSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True)
    lines = serializers.ListField(child=serializers.CharField())
    needs = NeedSerializer(many=True)


class NeedsSerializer(serializers.Serializer):
    division = serializers.CharField()
    mode = serializers.ChoiceField(choices=["exact", "bounds", "final"])
    places = serializers.IntegerField()
    places_default = serializers.BooleanField()
    margin_bound = serializers.IntegerField()
    assumptions = serializers.ListField(child=serializers.CharField())
    players = PlayerNeedsSerializer(many=True)


class ChancesRowSerializer(serializers.Serializer):
    """One player's prize chances (``manage.py chances --json``'s row)."""

    number = serializers.IntegerField()
    name = serializers.CharField()
    p_first = serializers.FloatField()
    p_places = serializers.ListField(child=serializers.FloatField(), help_text="1st, 2nd, ...")
    p_cash = serializers.FloatField(help_text="chance of a paid place")
    p_class = serializers.FloatField(allow_null=True, help_text="null: no class prize")
    expected_rank = serializers.FloatField(allow_null=True, help_text="null: not ranked")
    best_rank = serializers.IntegerField(allow_null=True, help_text="best seen in simulation")
    worst_rank = serializers.IntegerField(allow_null=True, help_text="worst seen in simulation")


class RatingListSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingList
        fields = ["slug", "name", "system", "description", "start_date"]


class PlayerRatingSerializer(serializers.ModelSerializer):
    player_id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(source="player.name", read_only=True)

    class Meta:
        model = PlayerRating
        fields = ["player_id", "name", "rating", "career_games", "last_event_date"]


class RatingHistorySerializer(serializers.ModelSerializer):
    rating_list = serializers.CharField(source="event.rating_list.slug", read_only=True)
    event = serializers.CharField(source="event.name", read_only=True)
    date = serializers.DateField(source="event.date", read_only=True)

    class Meta:
        model = RatingHistory
        fields = ["rating_list", "event", "date", "before", "after", "games"]


class PlayerRatingOnListSerializer(serializers.ModelSerializer):
    rating_list = serializers.CharField(source="rating_list.slug", read_only=True)

    class Meta:
        model = PlayerRating
        fields = ["rating_list", "rating", "career_games"]


class PlayerSerializer(serializers.ModelSerializer):
    ratings = PlayerRatingOnListSerializer(source="list_ratings", many=True, read_only=True)
    history = RatingHistorySerializer(source="rating_history", many=True, read_only=True)

    class Meta:
        model = Player
        fields = ["id", "name", "country", "naspa_id", "wespa_id", "ratings", "history"]


# --------------------------------------------------------------------------- writes


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, not "12" nor true: a client sending the wrong type hears so."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A JSON string, not 7 nor true (DRF would quietly turn them into "7" and "True")."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know (a misspelt ``opp_scroe`` must not be ignored)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                allowed = ", ".join(self.fields)
                raise ValidationError(
                    {name: [ErrorDetail(allowed, code="unknown_field")] for name in unknown}
                )
        return super().to_internal_value(data)


def _score(**kw: Any) -> StrictIntegerField:
    return StrictIntegerField(min_value=-INT_MAX, max_value=INT_MAX, **kw)


class ResultSerializer(StrictSerializer):
    """A result from one player's side, as a scorecard reads: their score first."""

    round = StrictIntegerField(min_value=1, max_value=INT_MAX)
    player = StrictIntegerField(min_value=1, max_value=INT_MAX, help_text="player number")
    score = _score(
        required=False,
        allow_null=True,
        default=None,
        help_text="this player's score (a bye's alone); left out for a forfeit",
    )
    opp_score = _score(required=False, allow_null=True, help_text="the opponent's score")
    state = serializers.ChoiceField(
        choices=["scores", "forfeit", "double_forfeit"],
        required=False,
        default="scores",
        help_text="scores (the default), forfeit (this player forfeits) or double_forfeit "
        "(both lose by the forfeit spread)",
    )


class CorrectionSerializer(ResultSerializer):
    state = serializers.ChoiceField(
        choices=["scores", "forfeit", "double_forfeit", "clear"],
        required=False,
        default="scores",
        help_text="the game's new state: scores, forfeit (this player forfeits), "
        "double_forfeit, or clear (back to unplayed)",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="why the result changes (required; kept in the audit trail)",
    )
    seen = StrictCharField(
        required=False,
        max_length=40,
        help_text="the result you last read, this player's score first: '412 389', '-50 50' "
        "for a forfeit (the two rows' scores), or 'unplayed'. When given and the game holds "
        "something else now (someone corrected it meanwhile), the correction is refused with "
        "result_changed_meanwhile and the scores now stored",
    )


# --------------------------------------------------------------------------- pairing writes


class PairRoundSerializer(StrictSerializer):
    """Pair a round with the engine, as the console's pairing page proposes and publishes."""

    system = StrictCharField(
        required=False,
        max_length=20,
        help_text="a pairing system for this round (default: the division's schedule)",
    )


class PairingGameSerializer(StrictSerializer):
    """One game of a round paired elsewhere: the first number goes first; second 0 = the bye."""

    first = StrictIntegerField(min_value=1, max_value=INT_MAX, help_text="player number")
    second = StrictIntegerField(
        min_value=0, max_value=INT_MAX, help_text="the opponent's number; 0 = a bye"
    )
    board = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=9999,
        help_text="board number (not stored for a bye)",
    )


class PairingsSerializer(StrictSerializer):
    """A whole round: every active player exactly once, a bye only for an odd field."""

    games = PairingGameSerializer(many=True, allow_empty=False, max_length=10000)


class ByeSerializer(StrictSerializer):
    """Add a bye: ``player`` sits out (their opponent takes the bye player's game, or a bye).
    Remove one: ``remove`` true, and ``opponent`` when more than one player could be it."""

    player = StrictIntegerField(min_value=1, max_value=INT_MAX)
    remove = serializers.BooleanField(required=False, default=False)
    opponent = StrictIntegerField(min_value=1, max_value=INT_MAX, required=False)


class UnpairedSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    games_removed = serializers.IntegerField()


# --------------------------------------------------------------------------- registration writes


class NewEntrySerializer(StrictSerializer):
    """A registry player by id, or a new player by name; numbered after the last entry."""

    player_id = StrictIntegerField(
        required=False, min_value=1, max_value=INT_MAX, help_text="a player already in the registry"
    )
    name = StrictCharField(
        required=False, allow_blank=True, max_length=300, help_text='a new player, "Surname, Given"'
    )
    rating = StrictIntegerField(
        required=False,
        min_value=-INT_MAX,
        max_value=INT_MAX,
        help_text="seed rating, 0 (unrated) to 3000; a registry player's default is their "
        "rating on the division's list",
    )
    player_class = StrictCharField(required=False, allow_blank=True, max_length=300)
    new_player = serializers.BooleanField(
        required=False,
        default=False,
        help_text="add a new person even though the registry has players of a similar name",
    )
    different_person = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=300,
        help_text="when this tournament already has a player of that name or nearly: what "
        "tells the new person apart (kept on the player); without it the add is refused",
    )


class EntryEditSerializer(StrictSerializer):
    """Correct a player's seed rating and/or class, or give the NASPA id the registry lacks
    (a field left out stays as it is; an id the registry holds is its keepers' to change)."""

    seed_rating = StrictIntegerField(required=False, min_value=-INT_MAX, max_value=INT_MAX)
    player_class = StrictCharField(required=False, allow_blank=True, max_length=300)
    naspa_id = StrictCharField(required=False, allow_blank=True, max_length=300)


class EntryRoundSerializer(StrictSerializer):
    """Withdraw from this round on, or reinstate from this round (the next to pair)."""

    round = StrictIntegerField(min_value=1, max_value=INT_MAX)


class MoveEntrySerializer(StrictSerializer):
    """The division (its slug, as in the URLs) to move the player to, before round 1."""

    division = serializers.CharField(max_length=100)


class MovedEntrySerializer(serializers.Serializer):
    division = serializers.CharField(help_text="the slug of the division the player is now in")
    number = serializers.IntegerField(help_text="the player's number there (the last one)")
    name = serializers.CharField()
    from_division = serializers.CharField(help_text="the slug of the division they left")
    from_number = serializers.IntegerField(help_text="their number there; later numbers close up")


class RenumberingSerializer(serializers.Serializer):
    old = serializers.IntegerField()
    new = serializers.IntegerField()
    name = serializers.CharField()
    seed_rating = serializers.IntegerField()


class RenumberedSerializer(serializers.Serializer):
    moved = serializers.IntegerField(help_text="how many players changed number")
    numbers = RenumberingSerializer(many=True, help_text="every player, old and new number")


class RemovedEntrySerializer(serializers.Serializer):
    removed = serializers.IntegerField(help_text="the removed player's number")
    renumbered = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="[old, new] numbers of the players behind, moved down by one",
    )
