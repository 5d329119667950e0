"""Registry search: players looked up by name, federation id or a name nearly the same."""

from __future__ import annotations

import difflib
from typing import Any

from django.db import connection
from django.db.models import Case, IntegerField, Max, Q, Value, When
from django.utils.translation import gettext as _

from ratings.models import PlayerRating, RatingHistory, RatingList

from ..models import (
    Division,
    Entry,
    Player,
)
from ..namesearch import Query, by_activity, fold, rank

# ------------------------------------------------------------------- registry search
#
# The console's registration, the clubs' member pages and the API all look players up here:
# by name (every typed word), federation id, or a name nearly the same (before a new player
# is made). Only names, ids and ratings come out, never contact details.

SEARCH_LIMIT = 12
MAX_QUERY = 100  # characters of a query read (a name is shorter)
NEAR_LIMIT = 5
NEAR_RATIO = 0.85  # "Smith, Jon" v "Smith, John" is 0.95; "Smith, Joan" v "Smyth, Jane" 0.82


# a query that starts thousands of names ("s") is answered from this many, not the registry
CANDIDATE_CAP = 5000


def _candidates(query: Query) -> list[tuple[int, str]]:
    """(id, search key) of the players that may answer the query: those sharing at least
    ``Query.least_shared`` trigrams with it, which every player that scores does.

    One query for both databases, so both find the same candidates: each trigram is one LIKE
    on the stored key; a name must pass enough of them (counted), and on PostgreSQL one of
    them first, which the pg_trgm index on the key answers (migration 0022). ``Query.score``
    then ranks them in Python, the same on both.
    """
    shares_one = Q()
    shared = []
    for text in query.candidate_lookups():
        has = Q(search_key__contains=text)
        shares_one |= has
        shared.append(Case(When(has, then=Value(1)), default=Value(0)))
    count = shared[0]
    for more in shared[1:]:
        count = count + more
    players = Player.objects.all()
    if connection.vendor == "postgresql":  # the trigram index finds these; SQLite scans anyway
        players = players.filter(shares_one)
    players = players.alias(shared=count).filter(
        shared__gte=Value(query.least_shared(), output_field=IntegerField())
    )
    return list(players.order_by("pk").values_list("pk", "search_key")[:CANDIDATE_CAP])


def last_active(player_ids: list[int]) -> dict[int, str]:
    """Each player's last event (entered, or rated on a list) as an ISO date: what breaks a
    tie between two names as like the query (the active player is the one meant)."""
    out: dict[int, str] = {}
    for rows in (
        Entry.objects.filter(
            player_id__in=player_ids, division__tournament__start_date__isnull=False
        )
        .values("player_id")
        .annotate(last=Max("division__tournament__start_date"))
        .values_list("player_id", "last"),
        RatingHistory.objects.filter(player_id__in=player_ids)
        .values("player_id")
        .annotate(last=Max("event__date"))
        .values_list("player_id", "last"),
    ):
        for pk, last in rows:
            if last is not None and last.isoformat() > out.get(pk, ""):
                out[pk] = last.isoformat()
    return out


def find_player_ids(text: str, scope: Q | None = None, limit: int = SEARCH_LIMIT) -> list[int]:
    """Ids of the players whose name answers ``text`` best, forgiving typos, accents, word
    order and nicknames (tournament.namesearch), ranked by how well, then by who played
    last; at most ``limit``. ``scope`` narrows the players (the public's: listed ones)."""
    query = Query(text.replace("\x00", " ")[:MAX_QUERY])
    if not query:
        return []
    scored = rank(query, _candidates(query))
    if scope is not None and scored:
        # the scope is asked of the names that score (a few hundred), not of every row the
        # candidate query reads
        kept: set[int] = set()
        ids = [pk for _, pk in scored]
        for start in range(0, len(ids), 900):
            chunk = ids[start : start + 900]
            kept.update(Player.objects.filter(scope, pk__in=chunk).values_list("pk", flat=True))
        scored = [s for s in scored if s[1] in kept]
    # activity decides only among the best: read it for the first ``limit`` and their ties
    if len(scored) > limit:
        cut = round(scored[limit - 1][0], 6)
        scored = [s for s in scored if round(s[0], 6) >= cut]
    return by_activity(scored, last_active([pk for _, pk in scored]))[:limit]


def federation_ids(player: Player) -> list[tuple[str, str]]:
    return [
        (label, value)
        for label, value in (
            ("NASPA", player.naspa_id),
            ("WESPA", player.wespa_id),
            ("ABSP", player.absp_id),
        )
        if value
    ]


def player_choices(division: Division, players: list[Player]) -> list[dict[str, Any]]:
    """One pickable row per player and rating: the division's list if it has one, else every
    list the player is on (an unrated row when on none). Only names, ids and ratings go in:
    the template never sees a Player, so contact details cannot leak into the page.

    Each row's ``label`` says which list its rating is on ("2087 on NASPA-CSW"), a club's own
    list as a club rating, and off the division's list what the director has instead ("no
    rating on NASPA-CSW; club rating 1004"): a seed's source must never be a guess.
    """
    ratings = list(
        PlayerRating.objects.filter(player__in=players)
        .select_related("rating_list")
        .order_by("rating_list__name")
    )
    club_lists = set(
        RatingList.objects.filter(
            pk__in={r.rating_list_id for r in ratings} | {division.rating_list_id or 0},
            club__isnull=False,
        ).values_list("pk", flat=True)
    )
    by_player: dict[int, list[Any]] = {}
    clubs: dict[int, list[Any]] = {}
    for r in ratings:
        if r.rating_list_id in club_lists and r.rating_list_id != division.rating_list_id:
            clubs.setdefault(r.player_id, []).append(r)
        if not division.rating_list_id or r.rating_list_id == division.rating_list_id:
            by_player.setdefault(r.player_id, []).append(r)
    registered = dict(
        division.entries.filter(player__in=players).values_list("player_id", "number")
    )
    # one person, one division: a player entered in another division of this tournament is
    # named as such, so the director moves them rather than adds a second person by that name
    elsewhere = (
        {
            pid: f"division {name} as #{number}"
            for pid, name, number in Entry.objects.filter(
                division__tournament_id=division.tournament_id, player__in=players
            )
            .exclude(division=division)
            .values_list("player_id", "division__name", "number")
        }
        if division.tournament_id  # a club's member search asks with no division
        else {}
    )
    rows = []
    for p in players:
        base = {
            "player_id": p.pk,
            "name": p.name,
            "note": p.note,
            "ids": federation_ids(p),
            "country": p.country,
            "number": registered.get(p.pk),
            "elsewhere": elsewhere.get(p.pk, ""),
        }
        listed = by_player.get(p.pk, [])
        for r in listed:
            rows.append(
                {
                    **base,
                    "pick": f"{p.pk}:{r.rating_list_id}",
                    "rating": r.rating,
                    "list": r.rating_list.name,
                    "label": rating_label(
                        r.rating, r.rating_list.name, r.rating_list_id in club_lists
                    ),
                }
            )
        if not listed:
            off_list = division.rating_list.name if division.rating_list_id else ""
            label = _("no rating on {list}").format(list=off_list) if off_list else _("unrated")
            label += "".join(
                "; " + _("club rating {rating}").format(rating=r.rating)
                for r in clubs.get(p.pk, [])
                if r.rating
            )
            rows.append(
                {**base, "pick": str(p.pk), "rating": None, "list": off_list, "label": label}
            )
    return rows


def rating_label(rating: int, list_name: str, club: bool) -> str:
    """A rating with its list, as registration shows it: "2087 on NASPA-CSW", a club's list as
    "club rating 1004 (Riverside club ratings)", a 0 as "no rating on LIST"."""
    if not rating:
        return _("no rating on {list}").format(list=list_name)
    if club:
        return _("club rating {rating} ({list})").format(rating=rating, list=list_name)
    # Translators: a player's rating and the rating list it is on, e.g. "2087 on NASPA-CSW".
    return _("{rating} on {list}").format(rating=rating, list=list_name)


def search_players(division: Division, query: str) -> list[dict[str, Any]]:
    """Registry players whose federation id is the query, then those whose name answers it
    (``find_player_ids``: typos, accents, word order and nicknames forgiven), best first.

    The console's registration, the players' own online entry and a club's member search ask
    here; the rows are ``player_choices``' (names, ids and ratings, no contact details).
    """
    # NUL is no name's letter, and PostgreSQL refuses it in any query (a 500, not no match)
    query = " ".join(query.replace("\x00", " ").split())[:MAX_QUERY]
    if len(query) < 2:
        return []
    by_id = Q(naspa_id__iexact=query) | Q(wespa_id__iexact=query) | Q(absp_id__iexact=query)
    ids = list(Player.objects.filter(by_id).order_by("pk").values_list("pk", flat=True)[:3])
    ids += [pk for pk in find_player_ids(query, limit=SEARCH_LIMIT) if pk not in ids]
    by_pk = Player.objects.in_bulk(ids[:SEARCH_LIMIT])
    return player_choices(division, [by_pk[pk] for pk in ids[:SEARCH_LIMIT] if pk in by_pk])


def _near(matcher: difflib.SequenceMatcher, key: str, words: list[str], other: str) -> float:
    """How like the folded name ``key`` the folded ``other`` is: 2.0 for the same words in
    any order, the ratio when at least NEAR_RATIO, else 0."""
    if other == key or sorted(other.split()) == words:
        return 2.0
    matcher.set_seq1(other)
    if (
        matcher.real_quick_ratio() >= NEAR_RATIO
        and matcher.quick_ratio() >= NEAR_RATIO
        and (ratio := matcher.ratio()) >= NEAR_RATIO
    ):
        return ratio
    return 0.0


def same_name_entries(tournament_id: int, name: str) -> list[Entry]:
    """Entries of this tournament whose player's name is the same as ``name`` or nearly.

    Adding a new player by such a name mid-event made a second, identical "Smith, Jane" that
    could not be told apart or removed: the director must first say which person it is.
    Only this tournament's entries are read (a few hundred), not the registry.
    """
    key = fold(name)
    if not key:
        return []
    words = sorted(key.split())
    matcher = difflib.SequenceMatcher(b=key, autojunk=False)
    entries = Entry.objects.filter(division__tournament_id=tournament_id).select_related(
        "player", "division"
    )
    return [
        e
        for e in entries.order_by("division__name", "number")
        if _near(matcher, key, words, fold(e.player.name))
    ]


def near_duplicates(name: str) -> list[Player]:
    """Registry players whose name is the same or nearly (accents, case, a letter or two,
    given name first): before adding a new player the director should see them."""
    key = fold(name)
    if not key:
        return []
    words = sorted(key.split())
    found: list[tuple[float, int]] = []
    matcher = difflib.SequenceMatcher(b=key, autojunk=False)
    for pk, other in Player.objects.values_list("pk", "name").iterator():
        if ratio := _near(matcher, key, words, fold(other)):
            found.append((ratio, pk))
    found.sort(key=lambda f: -f[0])
    ids = [pk for _, pk in found[:NEAR_LIMIT]]
    by_pk = Player.objects.in_bulk(ids)
    return [by_pk[pk] for pk in ids if pk in by_pk]
