"""/api/v1/events/: the events calendar for scripts (tournament.selectors.calendar).

``?when=upcoming`` (the default: upcoming and in play, soonest first) or ``past`` (finished,
latest first, with each division's winner); filters ``country``, ``region``, ``lexicon`` and
``rating`` as on /events/. Public: published tournaments only, no address of anyone.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..errors import ServiceError
from ..selectors.calendar import (
    parse_filters,
    past_event_ids,
    past_events,
    upcoming_events,
)
from .views import READ_ERRORS

PAST_LIMIT = 100


class CalendarDivisionSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    rounds = serializers.IntegerField()
    rating_min = serializers.IntegerField(allow_null=True)
    rating_max = serializers.IntegerField(allow_null=True)
    band = serializers.CharField()
    fee = serializers.CharField(allow_blank=True)
    cap = serializers.IntegerField(allow_null=True)
    entered = serializers.IntegerField()
    winner = serializers.CharField(allow_blank=True, help_text="past events: first place")
    winner_id = serializers.IntegerField(allow_null=True, help_text="the winner's player id")


class CalendarEventSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    start_date = serializers.DateField(allow_null=True)
    end_date = serializers.DateField(allow_null=True)
    venue = serializers.CharField(allow_blank=True)
    region = serializers.CharField(allow_blank=True)
    country = serializers.CharField(allow_blank=True)
    lexicon = serializers.CharField(allow_blank=True)
    status = serializers.ChoiceField(choices=["upcoming", "in play", "finished"])
    entries = serializers.CharField(allow_blank=True, help_text='"open until YYYY-MM-DD", ...')
    entries_open = serializers.BooleanField()
    contactable = serializers.BooleanField(help_text="the directors can be written to")
    divisions = CalendarDivisionSerializer(many=True)


@extend_schema(
    parameters=[
        OpenApiParameter("when", OpenApiTypes.STR, enum=["upcoming", "past"]),
        OpenApiParameter("country", OpenApiTypes.STR),
        OpenApiParameter("region", OpenApiTypes.STR),
        OpenApiParameter("lexicon", OpenApiTypes.STR),
        OpenApiParameter("rating", OpenApiTypes.INT, description="a division admits it"),
    ],
    responses={200: CalendarEventSerializer(many=True), **READ_ERRORS},
)
class EventList(APIView):
    """Published events, upcoming (and in play) or past, as the calendar shows them; past
    events are the latest ``PAST_LIMIT``."""

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        when = request.query_params.get("when", "upcoming")
        if when not in ("upcoming", "past"):
            raise ServiceError(
                "calendar_bad_filter",
                field="when",
                name="when",
                problem=f"{when[:20]!r}: give upcoming or past",
            )
        filters = parse_filters(request.query_params)
        today = timezone.localdate()
        if when == "past":
            rows = past_events(past_event_ids(today, filters)[:PAST_LIMIT], today)
        else:
            rows = upcoming_events(today, filters)
        data = []
        for e in rows:
            item = CalendarEventSerializer(e).data
            item["divisions"] = [
                {**CalendarDivisionSerializer(d).data, "band": d.band} for d in e.divisions
            ]
            data.append(item)
        return Response(data)
