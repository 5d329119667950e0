"""Public reads for clubs: the club, its members and guests, its nights, its seasons and a
season's ladder, as the club pages show them (names and results; never a player's email or
phone). Clubs are written through tournament.clubs.services in the club pages, not here.

Every read carries an ETag from ``Club.content_version``, which audit() moves with each write
to the club, its members, seasons and nights and with each game of its nights, so a club
website polling its ladder is answered 304 after one small query until something changes.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import Count, F, Func, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from ..clubs.ladder import Rule
from ..clubs.models import Night, Season
from ..clubs.selectors import club_by_slug, current_season, season_ladder
from ..models import Club, Entry, Game, Membership
from .views import READ_ERRORS, ETagMixin

# A club's slug, with an example for the docs' "try it out" (the API tests build a club of
# that slug and check each club read's real answer against the schema).
SLUG_EXAMPLE = "riverside"
SLUG = OpenApiParameter(
    "slug",
    str,
    OpenApiParameter.PATH,
    description="the club's slug",
    examples=[OpenApiExample("a club", value=SLUG_EXAMPLE)],
)
SEASON = OpenApiParameter("season", int, OpenApiParameter.PATH, description="the season's id")


# --------------------------------------------------------------------------- serializers


class ClubSerializer(serializers.ModelSerializer):
    """A club as the club list shows it."""

    class Meta:
        model = Club
        fields = ["slug", "name", "city", "country", "meets", "realm"]


class ClubDetailSerializer(ClubSerializer):
    """The club page's heading: where and when it meets, its rating list, how many members,
    and the season running now (its id for .../seasons/ID/ladder/)."""

    rating_list = serializers.SlugRelatedField(read_only=True, slug_field="slug", allow_null=True)
    members = serializers.SerializerMethodField()
    current_season = serializers.SerializerMethodField()

    class Meta(ClubSerializer.Meta):
        fields = [*ClubSerializer.Meta.fields, "rating_list", "members", "current_season"]

    def get_members(self, club: Club) -> int:
        """Active members; guests and lapsed members are not counted."""
        return club.memberships.filter(active=True, guest=False).count()

    def get_current_season(self, club: Club) -> int | None:
        season = current_season(club)
        return season.pk if season is not None else None


class MemberSerializer(serializers.ModelSerializer):
    """A member or guest by registry id and name (a player's contact details stay private)."""

    player_id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(source="player.name", read_only=True)
    joined = serializers.DateField(source="since", read_only=True, allow_null=True)

    class Meta:
        model = Membership
        fields = ["player_id", "name", "joined", "active", "guest"]


class NightSerializer(serializers.ModelSerializer):
    """A club night: its tournament (/api/v1/tournaments/SLUG/ has its games), how many
    players came, games planned and games with a result, and whether it counts yet (only a
    closed night counts for seasons and ratings)."""

    tournament = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    players = serializers.IntegerField(source="player_count", read_only=True)
    games_recorded = serializers.IntegerField(source="recorded_count", read_only=True)
    closed = serializers.BooleanField(read_only=True)

    class Meta:
        model = Night
        fields = ["date", "tournament", "players", "games", "games_recorded", "closed"]


class RuleSerializer(serializers.Serializer):
    """How the season scores a game and a night."""

    win = serializers.FloatField()
    tie = serializers.FloatField()
    loss = serializers.FloatField()
    margin_bonus = serializers.FloatField()
    margin = serializers.IntegerField()
    attendance = serializers.FloatField(help_text="points for each night played")
    best_nights = serializers.IntegerField(help_text="0: every night counts")
    min_nights = serializers.IntegerField(help_text="nights needed to be ranked")


class AwardSerializer(serializers.Serializer):
    award = serializers.CharField()
    player = serializers.IntegerField(help_text="the player's registry id")
    name = serializers.CharField()
    value = serializers.FloatField()


class SeasonSerializer(serializers.ModelSerializer):
    """A season: its dates and rule; an archived season has its awards kept."""

    rule = serializers.SerializerMethodField()
    archived = serializers.SerializerMethodField()
    awards = AwardSerializer(many=True, read_only=True)

    class Meta:
        model = Season
        fields = [
            "id",
            "name",
            "start_date",
            "end_date",
            "preset",
            "rule",
            "archived",
            "archived_at",
            "awards",
        ]

    @extend_schema_field(RuleSerializer)
    def get_rule(self, season: Season) -> dict[str, Any]:
        """The stored rule read as the ladder reads it (keys it no longer knows dropped)."""
        return Rule.from_dict(season.rule).as_dict()

    def get_archived(self, season: Season) -> bool:
        return season.archived_at is not None


class LadderRowSerializer(serializers.Serializer):
    """One player's line of a season's ladder."""

    rank = serializers.IntegerField(allow_null=True, help_text="null: not ranked yet")
    player = serializers.IntegerField(help_text="the player's registry id")
    name = serializers.CharField()
    points = serializers.FloatField()
    wins = serializers.FloatField()
    losses = serializers.FloatField()
    spread = serializers.IntegerField()
    nights = serializers.IntegerField()
    games = serializers.IntegerField()


class LadderSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    name = serializers.CharField()
    rows = LadderRowSerializer(many=True)


# --------------------------------------------------------------------------- views


class ClubFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    city = django_filters.CharFilter(lookup_expr="icontains")
    country = django_filters.CharFilter(lookup_expr="iexact")

    class Meta:
        model = Club
        fields = ["name", "city", "country", "realm"]


@extend_schema(responses={200: ClubSerializer(many=True), **READ_ERRORS})
class ClubList(ETagMixin, generics.ListAPIView):
    """Clubs by name; filter by name or city (parts of them) or country."""

    serializer_class = ClubSerializer
    filterset_class = ClubFilter
    queryset = Club.objects.order_by("name", "pk")

    def version_stamp(self) -> str | None:
        """Any club's write moves the sum; a club removed and another added moves the count
        or the highest id."""
        v = Club.objects.aggregate(n=Count("pk"), top=Max("pk"), sum=Sum("content_version"))
        return f"clubs.{v['n']}.{v['top'] or 0}.{v['sum'] or 0}"


class ClubScoped(ETagMixin):
    """Views under /clubs/SLUG/: the club's version (with today's date, since the current
    season changes with it) and the club itself (404 in the errors shape if unknown)."""

    def version_stamp(self) -> str | None:
        row = (
            Club.objects.filter(slug=self.kwargs["slug"])
            .values_list("pk", "created", "content_version")
            .first()
        )
        if row is None:
            return None
        pk, created, version = row
        made = "".join(ch for ch in str(created) if ch.isdigit())
        return f"club.{pk}.{made}.{version}.{timezone.localdate().isoformat()}"

    def club(self) -> Club:
        if not hasattr(self, "_club"):
            club = club_by_slug(self.kwargs["slug"])
            if club is None:
                raise NotFound(f"no club {self.kwargs['slug']!r}")
            self._club = club
        return self._club


@extend_schema(parameters=[SLUG], responses={200: ClubDetailSerializer, **READ_ERRORS})
class ClubDetail(ClubScoped, generics.RetrieveAPIView):
    """A club: where and when it meets, its rating list, members, the season running now."""

    serializer_class = ClubDetailSerializer

    def get_object(self) -> Club:
        return self.club()


class MemberFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="player__name", lookup_expr="icontains")

    class Meta:
        model = Membership
        fields = ["name", "guest"]


@extend_schema(parameters=[SLUG], responses={200: MemberSerializer(many=True), **READ_ERRORS})
class ClubMembers(ClubScoped, generics.ListAPIView):
    """Active members and guests by name (lapsed members are left out)."""

    serializer_class = MemberSerializer
    filterset_class = MemberFilter
    queryset = Membership.objects.none()  # the schema's model; get_queryset reads

    def get_queryset(self) -> QuerySet:
        return (
            self.club()
            .memberships.filter(Q(active=True) | Q(guest=True))
            .select_related("player")
            .order_by("guest", "player__name", "pk")
        )


class NightFilter(django_filters.FilterSet):
    after = django_filters.DateFilter(field_name="date", lookup_expr="gte")
    before = django_filters.DateFilter(field_name="date", lookup_expr="lte")
    closed = django_filters.BooleanFilter(
        field_name="closed_at", lookup_expr="isnull", exclude=True
    )

    class Meta:
        model = Night
        fields = ["after", "before", "closed"]


@extend_schema(parameters=[SLUG], responses={200: NightSerializer(many=True), **READ_ERRORS})
class ClubNights(ClubScoped, generics.ListAPIView):
    """The club's nights, latest first; filter by dates and closed."""

    serializer_class = NightSerializer
    filterset_class = NightFilter
    queryset = Night.objects.none()  # the schema's model; get_queryset reads

    def get_queryset(self) -> QuerySet:
        night = OuterRef("tournament_id")
        players = Entry.objects.filter(division__tournament_id=night)
        recorded = Game.objects.filter(
            round__division__tournament_id=night, score1__isnull=False
        ).filter(Q(player2__isnull=True) | Q(score2__isnull=False))
        return (
            self.club()
            .nights.filter(tournament__published=True)
            .select_related("tournament")
            .annotate(player_count=_count(players), recorded_count=_count(recorded))
            .order_by("-date", "-pk")
        )


def _count(rows: QuerySet) -> Subquery:
    """COUNT(*) of ``rows`` as a subquery (0 when none), one per night row."""
    return Coalesce(
        Subquery(rows.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")[:1]),
        0,
    )


@extend_schema(parameters=[SLUG], responses={200: SeasonSerializer(many=True), **READ_ERRORS})
class ClubSeasons(ClubScoped, generics.ListAPIView):
    """The club's seasons, latest first."""

    serializer_class = SeasonSerializer
    queryset = Season.objects.none()  # the schema's model; get_queryset reads

    def get_queryset(self) -> QuerySet:
        return self.club().seasons.order_by("-start_date", "-pk")


class _Built(generics.GenericAPIView):
    """A read whose body ``build()`` makes; ETagMixin.get wraps this get."""

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.build()

    def build(self) -> Response:
        raise NotImplementedError


@extend_schema(parameters=[SLUG, SEASON], responses={200: LadderSerializer, **READ_ERRORS})
class SeasonLadder(ClubScoped, _Built):
    """A season's ladder under its rule, from the games of the club's closed nights in its
    dates (the same rows as the club's ladder page); one list, not paginated."""

    serializer_class = LadderSerializer
    pagination_class = None
    filter_backends: list = []

    def build(self) -> Response:
        season = Season.objects.filter(club=self.club(), pk=self.kwargs["season"]).first()
        if season is None:
            raise NotFound(f"no season {self.kwargs['season']} of club {self.kwargs['slug']!r}")
        rows = [row.as_dict() for row in season_ladder(season)]
        return Response({"season": season.pk, "name": season.name, "rows": rows})
