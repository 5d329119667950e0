"""Game records over the API, at /api/v1/tournaments/SLUG/divisions/D/rounds/N/boards/B/record/:
read a game's GCG record (as its public page shows it), attach or replace it, and remove it
(the tournament's directors); the division's records as one zip at .../divisions/D/records.zip.

A write goes through the same service as the console, the command and the players' links
(tournament.services.gcg): a refusal is the usual 400 with its code and the file's line.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..formats.gcg import MAX_BYTES, parse_gcg, zip_records
from ..models import Division, Game, GameRecord
from ..selectors import division_by_key
from ..selectors.gcg import division_records, game_on_board, record_of
from ..services import gcg as gcg_services
from .permissions import can_direct, require_director, visible_tournament
from .serializers import StrictCharField, StrictSerializer
from .views import READ_ERRORS, WRITE_ERRORS


class RecordSerializer(serializers.Serializer):
    """A game's record: the GCG text and what it says."""

    round = serializers.IntegerField()
    board = serializers.IntegerField()
    file_name = serializers.CharField()
    lexicon = serializers.CharField(allow_blank=True)
    turns = serializers.IntegerField(help_text="the number of '>' lines")
    totals = serializers.DictField(
        child=serializers.IntegerField(), help_text="final total by full name"
    )
    public = serializers.BooleanField(help_text="whether public pages show it yet")
    gcg = serializers.CharField(help_text="the GCG file")


class AttachSerializer(StrictSerializer):
    """The GCG file as text (JSON), or as ``file`` (multipart/form-data)."""

    gcg = StrictCharField(required=False, trim_whitespace=False, max_length=MAX_BYTES)
    file_name = StrictCharField(required=False, max_length=200)


def _division(request: Request, slug: str, key: str) -> Division:
    tournament = visible_tournament(request.user, slug)
    division = division_by_key(tournament, key)
    if division is None:
        raise NotFound(f"no division {key!r} in {slug}")
    division.tournament = tournament
    return division


def record_data(game: Game, record: GameRecord) -> dict[str, Any]:
    parsed = parse_gcg(record.text)
    return RecordSerializer(
        {
            "round": game.round.number,
            "board": game.board,
            "file_name": record.file_name,
            "lexicon": record.lexicon,
            "turns": record.turns,
            "totals": parsed.totals(),
            "public": record.is_public,
            "gcg": record.text,
        }
    ).data


class GameRecordView(APIView):
    """A game's GCG record: read it (public once published; its directors at once), attach or
    replace it, remove it (the tournament's directors)."""

    permission_classes = [AllowAny]
    parser_classes = [JSONParser, MultiPartParser]

    def _game(self, request: Request, slug: str, division: str, round: int, board: int) -> Game:
        return game_on_board(_division(request, slug, division), round, board)

    @extend_schema(responses={200: RecordSerializer, **READ_ERRORS})
    def get(self, request: Request, slug: str, division: str, round: int, board: int) -> Response:
        """The record, or 404 when the game has none the caller may see."""
        game = self._game(request, slug, division, round, board)
        tournament = game.round.division.tournament
        record = record_of(game, public=not can_direct(request.user, tournament))
        if record is None:
            raise NotFound(f"round {round} board {board} has no game record to show")
        return Response(record_data(game, record))

    @extend_schema(request=AttachSerializer, responses={201: RecordSerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str, round: int, board: int) -> Response:
        """Attach the game's record (or replace it): checked against the game's players and
        recorded result; a refusal names the file's line."""
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        game = self._game(request, slug, division, round, board)
        require_director(request.user, game.round.division.tournament)
        upload = request.FILES.get("file")
        if upload is not None:
            data: bytes | str = upload.read(MAX_BYTES + 1)
            name = upload.name or "game.gcg"
        else:
            ser = AttachSerializer(data=request.data)
            ser.is_valid(raise_exception=True)
            if "gcg" not in ser.validated_data:
                raise serializers.ValidationError({"gcg": ["the GCG file is needed"]})
            data = ser.validated_data["gcg"]
            name = ser.validated_data.get("file_name") or "game.gcg"
        attached = gcg_services.attach_record(game, data, actor=request.user, file_name=name)
        return Response(record_data(game, attached.record), status=201)

    @extend_schema(responses={204: OpenApiResponse(description="removed"), **WRITE_ERRORS})
    def delete(
        self, request: Request, slug: str, division: str, round: int, board: int
    ) -> Response:
        """Remove the game's record."""
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        game = self._game(request, slug, division, round, board)
        require_director(request.user, game.round.division.tournament)
        gcg_services.remove_record(game, actor=request.user)
        return Response(status=204)


class DivisionRecordsZip(APIView):
    """Every record of the division the caller may see, as one zip of GCG files."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="v1_tournaments_divisions_records_zip",
        responses={
            (200, "application/zip"): OpenApiResponse(
                response=OpenApiTypes.BINARY, description="one .gcg file per game record"
            ),
            **READ_ERRORS,
        },
    )
    def get(self, request: Request, slug: str, division: str) -> HttpResponse:
        target = _division(request, slug, division)
        public = not can_direct(request.user, target.tournament)
        files = division_records(target, public=public)
        response = HttpResponse(zip_records(files), content_type="application/zip")
        filename = f"{target.tournament.slug}-{target.slug}-gcg.zip"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
