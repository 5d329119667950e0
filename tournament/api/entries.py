"""Entries online and check-in over the API.

- ``GET tournaments/SLUG/entries/``: the public entry lists, per division: entrants (number,
  name, rating, club, checked in) and the waiting list in order; never an e-mail address or
  phone number. Anyone who may see the tournament.
- ``POST tournaments/SLUG/divisions/D/entries/N/check-in/`` ``{"here": true}``: a director
  checks player #N in (or out with ``false``).
- ``POST tournaments/SLUG/divisions/D/remove-absent/``: a director removes every player not
  checked in before round 1 (numbers close up); answers the names removed.
- ``GET tournaments/SLUG/online-entries/``: the director's list of online entries (ids,
  status, paid, waiting position); ``POST tournaments/SLUG/online-entries/ID/``
  ``{"action": "approve"}`` (or refuse with ``reason``, promote, demote, paid, unpaid, move
  with ``to``): the console's buttons, through the same service.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import Division, DivisionEntryRule, Tournament
from ..selectors import checked_in_count, division_by_key, public_entry_list
from ..services import checkin
from ..services import online_entries as oe
from ..shapes import entrant_row, waiting_row
from .permissions import require_director, visible_tournament
from .serializers import StrictSerializer
from .views import READ_ERRORS, WRITE_ERRORS


class EntrantSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.IntegerField()
    club = serializers.CharField()
    checked_in = serializers.BooleanField()


class WaitingSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.IntegerField()
    club = serializers.CharField()


class DivisionEntriesSerializer(serializers.Serializer):
    division = serializers.CharField(help_text="the division's slug")
    name = serializers.CharField()
    takes_entries = serializers.BooleanField()
    cap = serializers.IntegerField(allow_null=True)
    band = serializers.CharField(help_text='"any rating" when the player picks')
    fee = serializers.CharField()
    entrants = EntrantSerializer(many=True)
    waiting = WaitingSerializer(many=True)


class EntriesSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["none", "not_yet", "open", "closed"])
    checked_in = serializers.IntegerField()
    players = serializers.IntegerField(help_text="players entered and not withdrawn")
    divisions = DivisionEntriesSerializer(many=True)


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only: "no" or 0 is a slip, not a choice."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class CheckInSerializer(StrictSerializer):
    here = StrictBooleanField(default=True)


class CheckedInSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    name = serializers.CharField()
    checked_in = serializers.BooleanField()


class RemovedSerializer(serializers.Serializer):
    removed = serializers.ListField(child=serializers.CharField())
    # the waiting entrants who had checked in, moved into the freed places in order
    promoted = serializers.ListField(child=serializers.CharField())


def entries_data(tournament: Tournament) -> dict[str, Any]:
    divisions = []
    for d in tournament.divisions.all():
        rule = DivisionEntryRule.objects.filter(division=d).first()
        placed, waiting = public_entry_list(d)
        divisions.append(
            {
                "division": d.slug,
                "name": d.name,
                "takes_entries": rule is not None,
                "cap": rule.cap if rule else None,
                "band": oe.band_text(rule) if rule else "",
                "fee": f"{rule.fee_amount} {rule.fee_currency}".strip() if rule else "",
                "entrants": [entrant_row(e) for e in placed],
                "waiting": [waiting_row(w) for w in waiting],
            }
        )
    here, players = checked_in_count(tournament)
    return EntriesSerializer(
        {
            "state": oe.window_state(tournament),
            "checked_in": here,
            "players": players,
            "divisions": divisions,
        }
    ).data


class EntryLists(APIView):
    """The tournament's entry lists and waiting lists; no contact details."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: EntriesSerializer, **READ_ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        return Response(entries_data(visible_tournament(request.user, slug)))


def _director_division(request: Request, slug: str, key: str) -> Division:
    if not request.user.is_authenticated:
        raise NotAuthenticated()
    tournament = visible_tournament(request.user, slug)
    require_director(request.user, tournament)
    division = division_by_key(tournament, key)
    if division is None:
        raise NotFound(f"no division {key!r} in {slug}")
    division.tournament = tournament
    return division


class CheckIn(APIView):
    """A director checks player #N in (``here``: true) or out (false)."""

    permission_classes = [AllowAny]

    @extend_schema(request=CheckInSerializer, responses={200: CheckedInSerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str, number: int) -> Response:
        target = _director_division(request, slug, division)
        entry = target.entries.select_related("player").filter(number=number).first()
        if entry is None:
            raise NotFound(f"division {target.slug} has no player #{number}")
        entry.division = target
        ser = CheckInSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        entry = checkin.check_in(entry, here=ser.validated_data["here"], actor=request.user)
        return Response(
            CheckedInSerializer(
                {
                    "number": entry.number,
                    "name": entry.name,
                    "checked_in": entry.checked_in_at is not None,
                }
            ).data
        )


class RemoveAbsent(APIView):
    """A director removes every player of the division not checked in, before round 1."""

    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={200: RemovedSerializer, **WRITE_ERRORS})
    def post(self, request: Request, slug: str, division: str) -> Response:
        target = _director_division(request, slug, division)
        names = checkin.remove_absent(target, actor=request.user)
        return Response(RemovedSerializer({"removed": names, "promoted": names.promoted}).data)


class OnlineEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    division = serializers.CharField()
    name = serializers.CharField()
    rating = serializers.IntegerField()
    status = serializers.ChoiceField(choices=oe.Status.choices)
    number = serializers.IntegerField(allow_null=True, help_text="the player's number, entered")
    waiting_position = serializers.IntegerField(allow_null=True)
    paid = serializers.BooleanField()
    note = serializers.CharField(help_text="a refusal's reason", allow_blank=True)
    entered_at = serializers.DateTimeField()


class EntryActionSerializer(StrictSerializer):
    action = serializers.ChoiceField(choices=oe.ENTRY_ACTIONS)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200)
    to = serializers.CharField(
        required=False, allow_blank=True, max_length=60, help_text="move: a division's slug or name"
    )


def _director_tournament(request: Request, slug: str) -> Tournament:
    if not request.user.is_authenticated:
        raise NotAuthenticated()
    tournament = visible_tournament(request.user, slug)
    require_director(request.user, tournament)
    return tournament


class OnlineEntries(APIView):
    """The director's list of online entries: pending, entered, waiting, refused, withdrawn;
    no contact details (those stay on the console, under the contact rule)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: OnlineEntrySerializer(many=True), **WRITE_ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        tournament = _director_tournament(request, slug)
        return Response(OnlineEntrySerializer(oe.director_rows(tournament), many=True).data)


class OnlineEntryAction(APIView):
    """A director acts on one online entry, as the console's buttons do: approve (a pending
    entry), refuse (``reason``), promote, demote, paid, unpaid, move (``to``)."""

    permission_classes = [AllowAny]

    @extend_schema(
        request=EntryActionSerializer, responses={200: OnlineEntrySerializer, **WRITE_ERRORS}
    )
    def post(self, request: Request, slug: str, pk: int) -> Response:
        tournament = _director_tournament(request, slug)
        online = oe.online_entry(tournament, pk)
        online.tournament = tournament
        ser = EntryActionSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        data = ser.validated_data
        oe.apply_entry_action(
            online,
            data["action"],
            reason=data.get("reason", ""),
            to=data.get("to", ""),
            actor=request.user,
        )
        row = next(r for r in oe.director_rows(tournament) if r["id"] == online.pk)
        return Response(OnlineEntrySerializer(row).data)
