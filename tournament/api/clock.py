"""The round clock over the API: read it (anyone who may see the tournament) and run it (its
directors), at /api/v1/tournaments/SLUG/divisions/D/rounds/N/clock/.

The answer carries the server's time beside the end, so a client counts down with the room's
clock, not its own: ``remaining = ends_at - server_now`` at the moment of the answer. It is
never cached (the seconds left change every second); the clock's changes are audited like
every write.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..clock import STATES, ClockState
from ..models import Division, RoundClock
from ..selectors import division_by_key, round_clock
from ..services import clock as clock_services
from .permissions import require_director, visible_tournament
from .serializers import StrictCharField, StrictIntegerField, StrictSerializer
from .views import READ_ERRORS, WRITE_ERRORS


class ExtensionSerializer(serializers.Serializer):
    minutes = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    at = serializers.DateTimeField()
    by = serializers.CharField()


class ClockSerializer(serializers.Serializer):
    """A round's clock at ``server_now``: the end and the seconds left, by the server's clock."""

    division = serializers.CharField(help_text="the division's slug")
    round = serializers.IntegerField()
    state = serializers.ChoiceField(choices=STATES)
    minutes = serializers.IntegerField(help_text="the length it was started with")
    extended_minutes = serializers.IntegerField()
    extensions = ExtensionSerializer(many=True)
    started_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="while running or over; null when paused or not started"
    )
    remaining_seconds = serializers.IntegerField()
    server_now = serializers.DateTimeField(help_text="the server's time of this answer")


class ClockActionSerializer(StrictSerializer):
    """``start`` (``minutes``: the tournament's round length if left out), ``pause``,
    ``resume``, ``extend`` (``minutes`` 1..60, ``reason``) or ``reset``."""

    action = serializers.ChoiceField(choices=clock_services.ACTIONS)
    minutes = StrictIntegerField(required=False)
    reason = StrictCharField(required=False, allow_blank=True, trim_whitespace=False)


def _division(request: Request, slug: str, key: str) -> Division:
    tournament = visible_tournament(request.user, slug)
    division = division_by_key(tournament, key)
    if division is None:
        raise NotFound(f"no division {key!r} in {slug}")
    division.tournament = tournament
    return division


def clock_data(division: Division, number: int, state: ClockState) -> dict[str, Any]:
    row = RoundClock.objects.filter(division=division, round_number=number).first()
    extensions = [
        {**e, "at": datetime.fromisoformat(e["at"])}
        for e in (row.extensions if row is not None and row.started_at else [])
    ]
    return ClockSerializer(
        {
            "division": division.slug,
            "round": number,
            "state": state.state,
            "minutes": state.minutes,
            "extended_minutes": state.extended_minutes,
            "extensions": extensions,
            "started_at": state.started_at,
            "ends_at": state.ends_at,
            "remaining_seconds": state.remaining_seconds,
            "server_now": state.now,
        }
    ).data


class RoundClockView(APIView):
    """A round's clock: read it (as the tournament's pages show it), or run it (directors)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: ClockSerializer, **READ_ERRORS})
    def get(self, request: Request, slug: str, division: str, round: int) -> Response:
        """The clock now; a round not started has the tournament's round length."""
        target = _division(request, slug, division)
        if not 1 <= round <= target.rounds:
            raise NotFound(f"division {target.slug} has rounds 1 to {target.rounds}")
        state = round_clock(target, round, timezone.now())
        response = Response(clock_data(target, round, state))
        response["Cache-Control"] = "no-store"
        return response

    @extend_schema(request=ClockActionSerializer, responses={200: ClockSerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str, round: int) -> Response:
        """Start, pause, resume, extend or reset the clock (the tournament's directors)."""
        if not request.user.is_authenticated:
            from rest_framework.exceptions import NotAuthenticated

            raise NotAuthenticated()
        target = _division(request, slug, division)
        require_director(request.user, target.tournament)
        ser = ClockActionSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = ser.validated_data
        state = clock_services.clock_action(
            target,
            round,
            v["action"],
            minutes=v.get("minutes"),
            reason=v.get("reason", ""),
            actor=request.user,
        )
        response = Response(clock_data(target, round, state))
        response["Cache-Control"] = "no-store"
        return response
