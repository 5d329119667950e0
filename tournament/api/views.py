"""The API's views: reads through selectors and querysets of what is public, writes through
``tournament.services`` (the same checks and audit events as the console)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import django_filters
from django.db.models import F, Prefetch, Q, QuerySet
from django.http import HttpResponse, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, Throttled
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from pairings.chances import chances_hidden, check_after_round
from pairings.needs import division_needs, needs_as_dict
from pairings.services.rounds import (
    add_bye,
    propose_round,
    publish_pairs,
    publish_proposal,
    remove_bye,
    unpair_round,
)
from ratings.division import rating_estimates
from ratings.models import PlayerRating, RatingHistory, RatingList
from ratings.selectors import public_player_q
from tournament.errors import ServiceError

from .. import selectors, services
from ..access import can_keep_score
from ..cache import PUBLIC_CACHE_CONTROL, serve_cached, site_version, tournament_version
from ..chances import cached_chances
from ..models import Division, Entry, Game, Player, Round, Tournament
from ..selectors import division_by_key, near_duplicates, pairings_after
from ..services import results
from ..shapes import standings_row
from ..throttle import heavy_wait
from . import serializers as s
from .permissions import (
    require_director,
    require_score_keeper,
    visible_tournament,
    visible_tournaments,
)

# --------------------------------------------------------------------------- error documentation


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()
    params = serializers.DictField()


class ErrorsSerializer(serializers.Serializer):
    errors = ErrorSerializer(many=True)


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {c: OpenApiResponse(ErrorsSerializer, description="refused") for c in codes}


READ_ERRORS = {
    **_errors(400, 404, 429),
    304: OpenApiResponse(description="not modified (If-None-Match held the ETag)"),
}
WRITE_ERRORS = _errors(400, 401, 403, 404, 415, 429)


# --------------------------------------------------------------------------- ETag / 304


def _etag_matches(request: Request, etag: str) -> bool:
    header = request.headers.get("If-None-Match", "")
    wanted = [e.removeprefix("W/") for e in parse_etags(header)] if header else []
    return "*" in wanted or etag in wanted


class ETagMixin:
    """A read's ETag from the data's version (caching.py), so a poller that sends it back is
    answered 304 after one small query. The key holds the viewer (a staff view differs), and
    a draft gets none (its staff change; a 304 must never outlive their access)."""

    etag: str | None = None

    def version_stamp(self) -> str | None:
        return site_version()

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        stamp = self.version_stamp()
        if stamp is None:
            return super().get(request, *args, **kwargs)
        viewer = request.user.pk if request.user.is_authenticated else "anon"
        # the host too: a list's next/previous links are absolute URLs
        raw = f"api|{stamp}|{viewer}|{request.get_host()}{request.get_full_path()}"
        etag = '"' + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32] + '"'
        self.etag = etag  # a body cached per version is kept under it (Standings)
        if _etag_matches(request, etag):
            response = Response(status=status.HTTP_304_NOT_MODIFIED)
        else:
            response = super().get(request, *args, **kwargs)
            if response.status_code != status.HTTP_200_OK:
                return response
        if not response.has_header("ETag"):  # a cached gzipped body carries it weak
            response["ETag"] = etag
        if viewer == "anon":
            # the same for every anonymous caller: a shared cache (the front tier) may keep
            # it as it keeps pages, never for a caller with credentials
            response["Cache-Control"] = PUBLIC_CACHE_CONTROL
            patch_vary_headers(response, ("Authorization", "Cookie"))
        else:
            response["Cache-Control"] = "private, no-cache"
        return response


class TournamentScoped(ETagMixin):
    """Views under /tournaments/SLUG/: the tournament's version and its visibility."""

    def version_stamp(self) -> str | None:
        version = tournament_version(self.kwargs["slug"])
        if version is None or not version.published:
            return None
        return version.stamp

    def tournament(self):
        if not hasattr(self, "_tournament"):
            self._tournament = visible_tournament(self.request.user, self.kwargs["slug"])
        return self._tournament

    def division(self) -> Division:
        if not hasattr(self, "_division"):
            key = self.kwargs["division"]
            division = division_by_key(self.tournament(), key)
            if division is None:
                raise NotFound(f"no division {key!r} in {self.kwargs['slug']}")
            self._division = division
        return self._division


# --------------------------------------------------------------------------- tournaments


class TournamentFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(lookup_expr="icontains")
    start_after = django_filters.DateFilter(field_name="start_date", lookup_expr="gte")
    start_before = django_filters.DateFilter(field_name="start_date", lookup_expr="lte")

    class Meta:
        model = Tournament
        fields = ["name", "realm", "published", "start_after", "start_before"]


@extend_schema(responses={200: s.TournamentSerializer(many=True), **READ_ERRORS})
class TournamentList(ETagMixin, generics.ListAPIView):
    """Published tournaments (and drafts the caller directs or keeps score for)."""

    serializer_class = s.TournamentSerializer
    filterset_class = TournamentFilter

    def get_queryset(self) -> QuerySet:
        return (
            visible_tournaments(self.request.user)
            .prefetch_related(Prefetch("divisions", Division.objects.order_by("position", "name")))
            .order_by("-start_date", "name", "pk")
        )


@extend_schema(responses={200: s.TournamentSerializer, **READ_ERRORS})
class TournamentDetail(TournamentScoped, generics.RetrieveAPIView):
    serializer_class = s.TournamentSerializer

    def get_object(self):
        return self.tournament()


@extend_schema(responses={200: s.DivisionSerializer(many=True), **READ_ERRORS})
class DivisionList(TournamentScoped, generics.ListAPIView):
    serializer_class = s.DivisionSerializer
    queryset = Division.objects.none()  # the schema's model; get_queryset reads

    def get_queryset(self) -> QuerySet:
        return (
            self.tournament()
            .divisions.select_related("rating_list", "tournament")
            .order_by("position", "name")
        )


@extend_schema(responses={200: s.DivisionSerializer, **READ_ERRORS})
class DivisionDetail(TournamentScoped, generics.RetrieveAPIView):
    serializer_class = s.DivisionSerializer

    def get_object(self):
        return self.division()


class EntryFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="player__name", lookup_expr="icontains")
    withdrawn = django_filters.BooleanFilter(
        field_name="withdrawn_round", lookup_expr="isnull", exclude=True
    )

    class Meta:
        model = Entry
        fields = ["name", "player_class", "withdrawn"]


@extend_schema(responses={200: s.EntrySerializer(many=True), **READ_ERRORS})
class EntryList(TournamentScoped, generics.ListAPIView):
    """The division's players by number."""

    serializer_class = s.EntrySerializer
    queryset = Entry.objects.none()  # the schema's model; get_queryset reads
    filterset_class = EntryFilter

    def get_queryset(self) -> QuerySet:
        return self.division().entries.select_related("player").order_by("number")

    @extend_schema(request=s.NewEntrySerializer, responses={201: s.EntrySerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str) -> Response:
        """Register a player (directors): a registry player by id or a new one by name."""
        target = _directed_division(request, slug, division)
        entry = register(target, _valid(s.NewEntrySerializer, request), request.user)
        return Response(_entry_data(entry), status=status.HTTP_201_CREATED)


def _games() -> QuerySet:
    return Game.objects.select_related("round", "player1__player", "player2__player").order_by(
        "board", "id"
    )


@extend_schema(responses={200: s.RoundSerializer(many=True), **READ_ERRORS})
class RoundList(TournamentScoped, generics.ListAPIView):
    """Paired rounds with their games (pairings, and results once recorded)."""

    serializer_class = s.RoundSerializer
    queryset = Round.objects.none()  # the schema's model; get_queryset reads

    def get_queryset(self) -> QuerySet:
        return (
            self.division()
            .round_set.filter(games__isnull=False)
            .distinct()
            .prefetch_related(Prefetch("games", _games()))
            .order_by("number")
        )


class GameFilter(django_filters.FilterSet):
    # rounds and players are numbered from 1: a negative or 0 is refused, not an empty page
    round = django_filters.NumberFilter(field_name="round__number", min_value=1)
    player = django_filters.NumberFilter(method="by_player", min_value=1)
    scored = django_filters.BooleanFilter(field_name="score1", lookup_expr="isnull", exclude=True)

    class Meta:
        model = Game
        fields = ["round", "player", "scored"]

    def by_player(self, queryset: QuerySet, name: str, value: Any) -> QuerySet:
        return queryset.filter(Q(player1__number=value) | Q(player2__number=value))


@extend_schema(
    parameters=[
        OpenApiParameter("round", {"type": "integer", "minimum": 1}, description="only this round"),
        OpenApiParameter(
            "player", {"type": "integer", "minimum": 1}, description="only this player number"
        ),
    ],
    responses={200: s.GameSerializer(many=True), **READ_ERRORS},
)
class GameList(TournamentScoped, generics.ListAPIView):
    """The division's games, by round and board; filter by round, player number, scored."""

    serializer_class = s.GameSerializer
    queryset = Game.objects.none()  # the schema's model; get_queryset reads
    filterset_class = GameFilter

    def get_queryset(self) -> QuerySet:
        return (
            _games()
            .filter(round__division=self.division())
            # byes (no board) last on every database: SQLite sorts NULL first, PostgreSQL
            # last, and a venue's copy must read the same as its hosted site (venue mode)
            .order_by("round__number", F("board").asc(nulls_last=True), "id")
        )

    def list(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        """A published tournament's page of games is built once per version and kept, as the
        standings are: a thousand games serialized cost a fifth of a second, and a script may
        ask for the same page ten times a second (bench_web.py --abuse took public standings
        to 40% of their quiet rate that way)."""
        if self.etag is None:  # a draft: built for its staff each time
            return super().list(request, *args, **kwargs)
        viewer = request.user.pk if request.user.is_authenticated else "anon"
        raw = f"api|{viewer}|{request.get_host()}{request.get_full_path()}"
        latest = "latest:" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]
        response, _ = serve_cached(
            request, self.etag, latest, lambda: self.rendered(request, *args, **kwargs)
        )
        return response

    def rendered(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        body = JSONRenderer().render(super().list(request, *args, **kwargs).data)
        return HttpResponse(body, content_type="application/json")


@extend_schema(
    parameters=[
        OpenApiParameter(
            "after_round",
            {"type": "integer", "minimum": 0},
            description="default: the latest round",
        )
    ],
    responses={200: s.StandingsSerializer, **READ_ERRORS},
)
class _Built(APIView):
    """A read whose body ``build()`` makes; ETagMixin.get wraps this get."""

    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        return self.build()

    def build(self) -> HttpResponseBase:
        raise NotImplementedError


class Standings(TournamentScoped, _Built):
    """Standings after any paired round (0: the seeding), as ``manage.py standings --json``.

    A scoreboard polls this as often as the standings page is read, and computing 500 rows
    with rating estimates costs a fifth of a second: a published tournament's body is built
    once per version for every worker and kept as the pages are (caching.serve_cached), under
    the ETag, which names the version and the address (the round asked for); while one
    worker builds a new version the others answer with the last one, a second old.
    """

    def build(self) -> HttpResponseBase:
        if self.etag is None:  # a draft: built for its staff each time, as its pages are
            return self.compute()
        user = self.request.user
        viewer = user.pk if user.is_authenticated else "anon"
        raw = f"api|{viewer}|{self.request.get_full_path()}"
        latest = "latest:" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]
        response, _ = serve_cached(self.request, self.etag, latest, self.rendered)
        return response

    def rendered(self) -> HttpResponse:
        body = JSONRenderer().render(self.compute().data)
        return HttpResponse(body, content_type="application/json")

    def compute(self) -> Response:
        d = self.division()
        last = selectors.last_round_number(d)
        raw = self.request.query_params.get("after_round")
        after = last
        if raw is not None:
            try:
                after = int(raw)
            except ValueError:
                raise ServiceError(
                    "not_a_number", field="after_round", what="after round", value=raw
                ) from None
            if after < 0:  # a negative round is no round at all, whatever was paired
                raise ServiceError(
                    "below_minimum", field="after_round", what="after round", minimum=0, value=after
                )
            if after > last:
                raise ServiceError(
                    "number_too_large",
                    field="after_round",
                    what="after round",
                    value=after,
                    minimum=0,
                    maximum=last,
                )
        rows = selectors.division_standings(d, after)
        estimates = rating_estimates(d, after)
        progress = selectors.DivisionSnapshot.load(d).round_progress()
        data = {
            "after_round": after,
            "in_progress": None
            if progress is None
            else {
                "round": progress.round,
                "scored_round": progress.scored_round,
                "games": progress.games,
                "games_in": progress.games_in,
                "byes": progress.byes,
                "forfeits": progress.forfeits,
                "text": progress.describe(),
            },
            "rows": [standings_row(r, estimates.get(r.number)) for r in rows],
        }
        return Response(data)


@extend_schema(
    parameters=[
        OpenApiParameter(
            "player", {"type": "integer", "minimum": 1}, description="only this player number"
        )
    ],
    responses={200: s.NeedsSerializer, **READ_ERRORS},
)
class Needs(Standings):
    """What each player needs for each prize place, as ``manage.py needs --json``: exact
    statements (structured alternatives and their words) once the last round is paired,
    safe bounds before. Public read, built once per version as the standings are."""

    def compute(self) -> Response:
        d = self.division()
        raw = self.request.query_params.get("player")
        player = None
        if raw is not None:
            try:
                player = int(raw)
            except ValueError:
                raise ServiceError(
                    "not_a_number", field="player", what="player", value=raw
                ) from None
            if player < 1:
                raise ServiceError(
                    "below_minimum", field="player", what="player", minimum=1, value=player
                )
        # the API's words stay English, whatever language the request asks for (a program
        # reads them; its structured fields say the same in every language)
        with translation.override("en"):
            return Response(needs_as_dict(division_needs(d, player)))


@extend_schema(
    parameters=[
        OpenApiParameter(
            "after_round",
            {"type": "integer", "minimum": 0},
            description="replay: as if only rounds 1..N had been played and paired "
            "(default: the division as it stands)",
        )
    ],
    responses={200: s.ChancesRowSerializer(many=True), **READ_ERRORS},
)
class _BuiltChances(_Built):
    def get(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponseBase:
        return self.build()


class Chances(Standings, _BuiltChances):
    """Prize chances (``manage.py chances --json``): each player's P(1st), P(each prize
    place), P(in the money), P(class prize), expected rank and the best and worst rank seen,
    from seeded simulations of the remaining rounds. Refused while the director hides them,
    except to the tournament's staff.

    Computed once per version of the data and kept (tournament.chances)."""

    def compute(self) -> Response:
        d = self.division()
        staff = can_keep_score(self.request.user, d.tournament)
        if not staff and chances_hidden(d):
            raise ServiceError("chances_hidden", field="division", division=d.name)
        after = check_after_round(d, self.request.query_params.get("after_round"))
        return Response([row.as_dict() for row in cached_chances(d, after)])


# --------------------------------------------------------------------------- writes


class _ResultWrite(APIView):
    permission_classes = [IsAuthenticated]
    serializer_class = s.ResultSerializer

    def _target(self, slug: str, key: str) -> Division:
        tournament = visible_tournament(self.request.user, slug)
        require_score_keeper(self.request.user, tournament)
        division = division_by_key(tournament, key)
        if division is None:
            raise NotFound(f"no division {key!r} in {slug}")
        return division


@extend_schema(request=s.ResultSerializer, responses={201: s.GameSerializer, **WRITE_ERRORS})
class RecordResult(_ResultWrite):
    """Record a game's result from one player's side (their score first); once per game."""

    def post(self, request: Request, slug: str, division: str) -> Response:
        target = self._target(slug, division)
        ser = s.ResultSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = ser.validated_data
        if v["state"] != "scores":
            game = results.change_result(
                target, v["round"], v["player"], v["state"], actor=request.user
            )[0]
        else:
            game = results.record_result(
                target, v["round"], v["player"], v["score"], v.get("opp_score"), actor=request.user
            )
        return Response(s.GameSerializer(_games().get(pk=game.pk)).data, status=201)


@extend_schema(
    request=s.CorrectionSerializer, responses={200: s.CorrectedGameSerializer, **WRITE_ERRORS}
)
class CorrectResult(_ResultWrite):
    """Correct a recorded result (this player's score first), with the reason for the change."""

    serializer_class = s.CorrectionSerializer

    def post(self, request: Request, slug: str, division: str) -> Response:
        target = self._target(slug, division)
        ser = s.CorrectionSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = ser.validated_data
        if v["state"] != "scores":
            # forfeit, double forfeit or clear: the player's own row is answered
            game = results.change_result(
                target,
                v["round"],
                v["player"],
                v["state"],
                reason=v["reason"],
                actor=request.user,
                seen=v.get("seen"),
            )[0]
        else:
            game = results.correct_player_result(
                target,
                v["round"],
                v["player"],
                v["score"],
                v.get("opp_score"),
                reason=v["reason"],
                actor=request.user,
                seen=v.get("seen"),
            )
        corrected = _games().get(pk=game.pk)
        # The rounds paired after this one used the old result: the caller may re-pair them.
        corrected.later_pairings = pairings_after(game)
        return Response(s.CorrectedGameSerializer(corrected).data)


# --------------------------------------------------------------------------- director writes
# Pairing and registration, as the console's pairing and registration pages do them: the same
# functions (pairings.services' proposal and publish, services.entries), so the same checks
# and one audit event per write. Directors only; scorekeepers write results.


def _directed_division(request: Request, slug: str, key: str) -> Division:
    """The division, if the caller directs its tournament (403 otherwise, 404 if unknown)."""
    tournament = visible_tournament(request.user, slug)
    require_director(request.user, tournament)
    division = division_by_key(tournament, key)
    if division is None:
        raise NotFound(f"no division {key!r} in {slug}")
    return division


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    ser = serializer_class(data=request.data)
    ser.is_valid(raise_exception=True)
    return ser.validated_data


@contextmanager
def _fields(**names: str) -> Iterator[None]:
    """A service refusal at the API's name for its field (``from_round`` is ``round`` here)."""
    try:
        yield
    except ServiceError as exc:
        exc.field = names.get(exc.field, exc.field)
        raise


def _round_data(division: Division, number: int) -> dict[str, Any]:
    rnd = (
        division.round_set.filter(number=number).prefetch_related(Prefetch("games", _games())).get()
    )
    return s.RoundSerializer(rnd).data


class _DirectorWrite(APIView):
    permission_classes = [IsAuthenticated]


@extend_schema(request=s.PairRoundSerializer, responses={201: s.RoundSerializer, **WRITE_ERRORS})
class PairRound(_DirectorWrite):
    """Pair a round with the engine and publish it (the console's proposal, unedited).

    Refused like the console: an earlier round unpaired or without results (unless lagged),
    the round already paired or with results, no system scheduled, impossible constraints.
    """

    def post(self, request: Request, slug: str, division: str, round: int) -> Response:
        target = _directed_division(request, slug, division)
        if wait := heavy_wait(request):  # the engine's proposal costs a worker seconds
            raise Throttled(wait=wait)
        v = _valid(s.PairRoundSerializer, request)
        proposal = propose_round(target, round, v.get("system"))
        publish_proposal(target, round, proposal.pairs, system=proposal.system, actor=request.user)
        return Response(_round_data(target, round), status=status.HTTP_201_CREATED)


class RoundPairings(_DirectorWrite):
    """A round's stored pairings: store a round paired elsewhere, or remove them (unpair)."""

    @extend_schema(request=s.PairingsSerializer, responses={201: s.RoundSerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str, round: int) -> Response:
        """Store a whole round as given: every active player once; the first number starts."""
        target = _directed_division(request, slug, division)
        v = _valid(s.PairingsSerializer, request)
        games = [(g["first"], g["second"], g.get("board")) for g in v["games"]]
        publish_pairs(target, round, games, actor=request.user)
        return Response(_round_data(target, round), status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: s.UnpairedSerializer, **WRITE_ERRORS})
    def delete(self, request: Request, slug: str, division: str, round: int) -> Response:
        """Unpair the last paired round while it has no results (the console's unpair)."""
        target = _directed_division(request, slug, division)
        count = unpair_round(target, round, actor=request.user)
        return Response({"round": round, "games_removed": count})


@extend_schema(request=s.ByeSerializer, responses={200: s.RoundSerializer, **WRITE_ERRORS})
class RoundByes(_DirectorWrite):
    """A round in play: add a bye or remove one (the console's bye controls), scored games
    kept exactly; every active player stays in exactly one game or bye."""

    def post(self, request: Request, slug: str, division: str, round: int) -> Response:
        target = _directed_division(request, slug, division)
        v = _valid(s.ByeSerializer, request)
        if v["remove"]:
            remove_bye(target, round, v["player"], v.get("opponent"), actor=request.user)
        else:
            if "opponent" in v:
                raise ServiceError(
                    "pairing_malformed",
                    field="opponent",
                    detail="an opponent goes with removing a bye only",
                )
            add_bye(target, round, v["player"], actor=request.user)
        return Response(_round_data(target, round))


def _entry(division: Division, number: int) -> Entry:
    entry = division.entries.select_related("player").filter(number=number).first()
    if entry is None:
        raise NotFound(f"no player number {number} in division {division.slug}")
    return entry


def _entry_data(entry: Entry) -> dict[str, Any]:
    return s.EntrySerializer(Entry.objects.select_related("player").get(pk=entry.pk)).data


def register(division: Division, v: dict[str, Any], actor: Any) -> Entry:
    """Add an entry as the console's registration page does: a registry player (seeded from
    the division's rating list unless a rating is given) or a new player by name, who is
    refused while the registry has near namesakes unless ``new_player`` says it is another
    person (the console's near-duplicate warning)."""
    given = [name for name in ("player_id", "name") if name in v]
    if len(given) != 1:
        problem = "both were sent" if given else "neither was sent"
        raise ServiceError(
            "api_player_or_name", field="name" if given else "player_id", problem=problem
        )
    player_class = v.get("player_class", "")
    if "player_id" in v:
        player = Player.objects.filter(pk=v["player_id"]).first()
        if player is None:
            raise ServiceError(
                "api_unknown_registry_player", field="player_id", player_id=v["player_id"]
            )
        rating, career = v.get("rating"), None
        if rating is None:
            listed = None
            if division.rating_list_id:
                listed = PlayerRating.objects.filter(
                    rating_list_id=division.rating_list_id, player=player
                ).first()
            rating, career = (listed.rating, listed.career_games) if listed else (0, None)
        return services.register_player(
            division,
            player=player,
            rating=rating,
            career_games=career,
            player_class=player_class,
            actor=actor,
        )
    name = " ".join(v["name"].split())
    if not v.get("new_player"):
        near = near_duplicates(name)
        if near:
            raise ServiceError(
                "api_near_duplicates",
                field="name",
                name=name,
                players="; ".join(f"{p.pk} {p.name}" for p in near),
            )
    return services.register_new_player(
        division,
        name=name,
        rating=v.get("rating", 0),
        player_class=player_class,
        actor=actor,
        different_person=v.get("different_person", ""),
    )


@extend_schema(responses={200: s.EntrySerializer, **READ_ERRORS})
class EntryDetail(TournamentScoped, generics.RetrieveAPIView):
    """One player of the division by number; directors correct (PATCH) or remove (DELETE)."""

    serializer_class = s.EntrySerializer

    def get_object(self) -> Entry:
        return _entry(self.division(), self.kwargs["number"])

    @extend_schema(
        request=s.EntryEditSerializer, responses={200: s.EntrySerializer, **WRITE_ERRORS}
    )
    def patch(self, request: Request, slug: str, division: str, number: int) -> Response:
        """Correct the seed rating and/or class, or give a missing NASPA id, as the console's
        edit form does."""
        entry = _entry(_directed_division(request, slug, division), number)
        v = _valid(s.EntryEditSerializer, request)
        services.update_entry(
            entry,
            seed_rating=v.get("seed_rating"),
            player_class=v.get("player_class"),
            naspa_id=v.get("naspa_id"),
            actor=request.user,
        )
        return Response(_entry_data(entry))

    @extend_schema(request=None, responses={200: s.RemovedEntrySerializer, **WRITE_ERRORS})
    def delete(self, request: Request, slug: str, division: str, number: int) -> Response:
        """Remove a mistaken entry before any round is paired; later numbers close up."""
        entry = _entry(_directed_division(request, slug, division), number)
        moved = services.remove_entry(entry, actor=request.user)
        return Response({"removed": number, "renumbered": [list(m) for m in moved]})


@extend_schema(
    request=s.MoveEntrySerializer, responses={200: s.MovedEntrySerializer, **WRITE_ERRORS}
)
class MoveEntry(_DirectorWrite):
    """Move a player entered in the wrong division to another one of the tournament, before
    round 1 of either is paired; they take the last number there (the console's move)."""

    def post(self, request: Request, slug: str, division: str, number: int) -> Response:
        source = _directed_division(request, slug, division)
        entry = _entry(source, number)
        v = _valid(s.MoveEntrySerializer, request)
        target = division_by_key(source.tournament, v["division"])
        if target is None:
            names = ", ".join(source.tournament.divisions.values_list("slug", flat=True))
            raise ServiceError(
                "unknown_division",
                field="division",
                tournament=source.tournament.slug,
                name=v["division"],
                names=names,
            )
        services.move_entry(entry, target, actor=request.user)
        return Response(
            {
                "division": target.slug,
                "number": entry.number,
                "name": entry.name,
                "from_division": source.slug,
                "from_number": number,
            }
        )


@extend_schema(request=None, responses={200: s.RenumberedSerializer, **WRITE_ERRORS})
class Renumber(_DirectorWrite):
    """Renumber the division's players by seed rating (highest #1, ties keep their order)
    before round 1 is paired, as TSH numbers them (the console's renumber button)."""

    def post(self, request: Request, slug: str, division: str) -> Response:
        target = _directed_division(request, slug, division)
        plan = services.renumber_by_rating(target, actor=request.user)
        numbers = [
            {"old": p.old, "new": p.new, "name": p.name, "seed_rating": p.rating} for p in plan
        ]
        return Response({"moved": sum(p.old != p.new for p in plan), "numbers": numbers})


@extend_schema(request=s.EntryRoundSerializer, responses={200: s.EntrySerializer, **WRITE_ERRORS})
class WithdrawEntry(_DirectorWrite):
    """Withdraw a player from a round on: paired games there become forfeits, opponents win."""

    def post(self, request: Request, slug: str, division: str, number: int) -> Response:
        entry = _entry(_directed_division(request, slug, division), number)
        v = _valid(s.EntryRoundSerializer, request)
        with _fields(from_round="round"):
            services.withdraw_player(entry, from_round=v["round"], actor=request.user)
        return Response(_entry_data(entry))


@extend_schema(request=s.EntryRoundSerializer, responses={200: s.EntrySerializer, **WRITE_ERRORS})
class ReinstateEntry(_DirectorWrite):
    """Bring a withdrawn player back from the next round to pair."""

    def post(self, request: Request, slug: str, division: str, number: int) -> Response:
        entry = _entry(_directed_division(request, slug, division), number)
        v = _valid(s.EntryRoundSerializer, request)
        services.reinstate_player(entry, v["round"], actor=request.user)
        return Response(_entry_data(entry))


# --------------------------------------------------------------------------- ratings, players


@extend_schema(responses={200: s.RatingListSerializer(many=True), **READ_ERRORS})
class RatingListList(ETagMixin, generics.ListAPIView):
    """The site's rating lists: slug, name, rating system, description and start date."""

    serializer_class = s.RatingListSerializer
    queryset = RatingList.objects.order_by("name")


class RatingFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="player__name", lookup_expr="icontains")
    min_rating = django_filters.NumberFilter(field_name="rating", lookup_expr="gte")

    class Meta:
        model = PlayerRating
        fields = ["name", "min_rating"]


@extend_schema(responses={200: s.PlayerRatingSerializer(many=True), **READ_ERRORS})
class RatingListRatings(ETagMixin, generics.ListAPIView):
    """A list's ratings, best first."""

    serializer_class = s.PlayerRatingSerializer
    queryset = PlayerRating.objects.none()  # the schema's model; get_queryset reads
    filterset_class = RatingFilter

    def get_queryset(self) -> QuerySet:
        lst = RatingList.objects.filter(slug=self.kwargs["slug"]).first()
        if lst is None:
            raise NotFound(f"no rating list {self.kwargs['slug']!r}")
        return lst.ratings.select_related("player").order_by("-rating", "player__name", "pk")


@extend_schema(responses={200: s.PlayerSerializer, **READ_ERRORS})
class PlayerDetail(ETagMixin, generics.RetrieveAPIView):
    """A player's ratings on each list and their rating history, event by event."""

    serializer_class = s.PlayerSerializer
    lookup_field = "pk"

    def get_queryset(self) -> QuerySet:
        # as the public profile page: a player seen only in draft tournaments is not shown
        return Player.objects.filter(public_player_q()).prefetch_related(
            Prefetch("list_ratings", PlayerRating.objects.select_related("rating_list")),
            Prefetch(
                "rating_history",
                RatingHistory.objects.select_related("event__rating_list").order_by(
                    "event__date",
                    "event__sequence",
                    "event__id",  # the lists' rating order
                ),
            ),
        )


class Unknown(APIView):
    """Any other address under /api/: the JSON 404 (Django's would be an HTML page)."""

    schema = None
    permission_classes: list = []

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        raise NotFound(f"no such address: {request.path}")
