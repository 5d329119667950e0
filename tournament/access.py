"""Who may do what: the one home of the role checks every interface and service uses.

It sits in the base layer (beside checks and errors), so selectors, services and every face
(pages, API, admin, commands, tasks) ask the same questions the same way instead of each
re-implementing them. The rules:

- a tournament is changed only by its directors (and site superusers); a club night is
  directed by its club's organisers;
- scorekeepers only enter and correct results;
- a draft tournament is seen only by its staff; a published one by everyone;
- a club is run by its organisers; the player registry by its keepers (a permission); a
  rating list by its officers.
- account names are seen by superusers, and by a director only for the staff of the
  tournaments they direct (never the site's whole list, never a superuser's name otherwise).
- a player's e-mail and phone are seen by the registry's keepers, and by a director only
  where the player shared them (entered one of their tournaments online themselves) or the
  director typed them in: never because someone entered the player somewhere.

Services check the acting user with :func:`require` (a refusal is ``ServiceError``
``not_allowed``); the faces ask the ``can_*`` questions first to word their own answer (a 403
page, the API's PermissionDenied, the admin's ``has_*_permission``). The manual's "Who may do
what" table (docs/reference.md) is the same rules as a grid, walked through every face by
tests/security/test_role_table.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils.translation import gettext_noop

from .errors import Phrase, ServiceError
from .models import (
    AuditEvent,
    Club,
    ImportJob,
    OnlineEntry,
    Player,
    Tournament,
    VenueLink,
    VenueTake,
)

if TYPE_CHECKING:
    from ratings.models import RatingList


def is_signed_in(user: Any) -> bool:
    """An active, authenticated account (anonymous visitors and disabled accounts are not)."""
    return user is not None and user.is_authenticated and user.is_active


def can_direct(user: Any, tournament: Tournament) -> bool:
    """A director of this tournament (or a site superuser), signed in and active."""
    return tournament.is_director(user)


def can_keep_score(user: Any, tournament: Tournament) -> bool:
    """May enter and correct results: the directors and the tournament's scorekeepers."""
    return tournament.is_scorekeeper(user)


def can_view(user: Any, tournament: Tournament) -> bool:
    """Published tournaments are public; a draft only for its staff; one still being imported
    by nobody (its rows go in batch by batch: its uploader follows the job instead)."""
    if tournament.importing:
        return False
    return tournament.published or can_keep_score(user, tournament)


def name_for(user: Any, tournament: Any) -> str:
    """How a refusal names ``tournament`` to ``user``: its name if they may see it, else
    "this tournament". A draft's name is its staff's news, so a refused visitor (who typed or
    guessed the slug) learns no more than the address they already have."""
    if isinstance(tournament, Tournament) and not can_view(user, tournament):
        return Phrase(gettext_noop("this tournament"))
    return str(tournament)


def visible_tournaments(user: Any) -> QuerySet[Tournament]:
    """Published tournaments, and the drafts this user directs or keeps score for."""
    qs = Tournament.objects.filter(importing=False)
    if is_signed_in(user) and user.is_superuser:
        return qs
    if not is_signed_in(user):
        return qs.filter(published=True)
    staff = Q(directors=user) | Q(scorekeepers=user)
    return qs.filter(pk__in=Tournament.objects.filter(Q(published=True) | staff).values("pk"))


def staffed_tournaments(user: Any) -> QuerySet[Tournament]:
    """The tournaments this user directs or keeps score for (every one, for a superuser):
    the console's list of one's tournaments."""
    if not is_signed_in(user):
        return Tournament.objects.none()
    live = Tournament.objects.filter(importing=False)  # an import in progress is its job's
    if user.is_superuser:
        return live
    return live.filter(Q(directors=user) | Q(scorekeepers=user)).distinct()


def can_follow_import(user: Any, job: ImportJob) -> bool:
    """An import job (its progress, its error, its files' names) is its uploader's own (and a
    site superuser's): another director, even of the same events, has no business in it."""
    if not is_signed_in(user):
        return False
    return bool(
        user.is_superuser or (job.created_by_id is not None and job.created_by_id == user.pk)
    )


# --- the other roles: clubs, the registry, rating lists, contact details ----------------------


def can_organise_club(user: Any, club: Club) -> bool:
    """One of the club's organisers (or a site superuser): runs its members, nights, seasons."""
    return club.is_organiser(user)


REGISTRY_PERMISSION = "tournament.manage_registry"


def can_keep_registry(user: Any) -> bool:
    """A keeper of the player registry (the ``manage_registry`` permission; superusers hold
    every permission): changes who a player is, merges duplicates, sees every contact."""
    return is_signed_in(user) and bool(user.has_perm(REGISTRY_PERMISSION))


def can_add_players(user: Any) -> bool:
    """Directors add the players their events need; the registry's keepers may too."""
    if can_keep_registry(user):
        return True
    return is_signed_in(user) and Tournament.objects.filter(directors=user).exists()


def can_rate(user: Any, rating_list: RatingList) -> bool:
    """An officer of the rating list (or a site superuser): submits events to it, imports
    starting ratings and re-rates it. A submission re-rates every later event on the list, so
    it is the list's officers' call, not any director's."""
    if not is_signed_in(user):
        return False
    return bool(user.is_superuser or rating_list.officers.filter(pk=user.pk).exists())


# The registry's writes that decide who supplied a player's contact details: the latest one
# touching them names the supplier (tournament.services.players audits each with its values).
CONTACT_FIELDS = ("email", "phone")
CONTACT_ACTIONS = ("create_player", "update_player", "merge_players")


def _supplied_by(user: Any, ids: set[int]) -> set[int]:
    """The players whose current contact details ``user`` typed in themselves (created the
    record with them): a director sees what they gave the registry, not what others did."""
    events = (
        AuditEvent.objects.filter(
            object_type="Player",
            object_id__in=[str(pk) for pk in ids],
            action__in=CONTACT_ACTIONS,
        )
        .order_by("at", "id")
        .values_list("object_id", "action", "user_id", "after")
    )
    supplier: dict[int, int | None] = {}
    for object_id, action, user_id, after in events:
        after = after if isinstance(after, dict) else {}
        if action == "create_player" and not any(after.get(f) for f in CONTACT_FIELDS):
            continue
        if action == "update_player" and not set(CONTACT_FIELDS) & set(after):
            continue
        supplier[int(object_id)] = user_id
    return {pk for pk, user_id in supplier.items() if user_id == user.pk}


def contact_visible(user: Any, player_ids: Iterable[int | None]) -> set[int]:
    """Which of ``player_ids`` the ``user`` may see the e-mail and phone of (the one rule,
    :func:`can_see_contact`, for a whole list in two queries).

    Contact details are personal data, given by the player, not by whoever enters them
    somewhere. A director sees them only for a player who entered one of their tournaments
    themselves and shared them (an online entry that made the record, or confirmed from the
    very address the registry holds: ``OnlineEntry.contact_shared``), or whose details the
    director typed into the registry themselves. An entry a director made (the console, the
    API, a club night's latecomer, an import) shows nothing: anyone may found a club or direct
    an event, and registry ids run in sequence. Superusers and the registry's keepers see
    every player's. The notices still reach an address nobody is shown.
    """
    ids = {int(pk) for pk in player_ids if pk is not None}
    if not ids or not is_signed_in(user):
        return set()
    if user.is_superuser or can_keep_registry(user):
        return ids
    shared = set(
        OnlineEntry.objects.filter(
            player_id__in=ids,
            tournament__directors=user,
            contact_shared=True,
        )
        .exclude(
            status__in=(
                OnlineEntry.Status.UNCONFIRMED,
                OnlineEntry.Status.PENDING,
                OnlineEntry.Status.DECLINED,
            )
        )
        .values_list("player_id", flat=True)
    )
    return shared | _supplied_by(user, ids - shared)


def can_see_contact(user: Any, player: Player | None) -> bool:
    """Whether ``user`` may see ``player``'s email and phone (see :func:`contact_visible`)."""
    if player is None or player.pk is None:
        return False
    return player.pk in contact_visible(user, [player.pk])


# --- one check for every service: require(actor, action, obj) ---------------------------------

# action -> (the check, who holds it: the refusal's words, marked here and translated when the
# refusal is read, see require). The vocabulary is small on purpose:
# each service names the one action its write needs, and the manual's role table
# (docs/reference.md) lists them.
ACTIONS: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "view": (can_view, gettext_noop("its directors and scorekeepers (it is a draft)")),
    "direct": (can_direct, gettext_noop("its directors")),
    "keep_score": (can_keep_score, gettext_noop("its directors and scorekeepers")),
    "organise_club": (can_organise_club, gettext_noop("its organisers")),
    "keep_registry": (
        lambda user, _obj: can_keep_registry(user),
        gettext_noop("the registry's keepers"),
    ),
    "add_players": (
        lambda user, _obj: can_add_players(user),
        gettext_noop("directors and registry keepers"),
    ),
    "rate": (can_rate, gettext_noop("the list's officers")),
    "open_rating_list": (
        lambda user, obj: can_open_rating_list(user, obj),
        gettext_noop("site administrators"),
    ),
    "follow_import": (can_follow_import, gettext_noop("the director who uploaded it")),
    # taking a tournament back from its venue (venue mode): the one write a replica accepts
    # from its own directors
    "reclaim": (can_direct, gettext_noop("its directors")),
}

# Actions that are not writes to the tournament's play, so a tournament run from a venue
# (a read replica here) still answers them: reading, following an import, taking it back.
NOT_PLAY_WRITES = frozenset({"view", "follow_import", "reclaim"})


@dataclass(frozen=True)
class LinkActor:
    """A venue link acting on its own tournament: the only writer of a hosted replica.

    A trusted door for the role checks (the link's token was checked by the venue service),
    and the one actor :func:`check_authority` lets write to the tournament the link holds.
    """

    link_id: int
    venue: str

    def __str__(self) -> str:
        return f"venue {self.venue}"[:100]


def authority_facts(tournament_id: int) -> dict[str, Any]:
    """What decides who may write to a tournament here, read in one query (speed: every
    write asks twice, in ``require`` and in the venue hook, so each ask is one round trip).

    ``link_pk``, ``link_venue``, ``link_taken``: the venue link that has taken it (None when
    none has); ``released``: the hosted address it was handed back to (a venue instance);
    ``held_take``: the venue take holding it here, whose changes are logged for the venue.
    """
    links = VenueLink.objects.filter(
        tournament_id=OuterRef("pk"), taken__isnull=False, revoked__isnull=True
    ).order_by("-created")
    takes = VenueTake.objects.filter(tournament_id=OuterRef("pk")).order_by("pk")
    facts = (
        Tournament.objects.filter(pk=tournament_id)
        .values(
            link_pk=Subquery(links.values("pk")[:1]),
            link_venue=Subquery(links.values("venue_name")[:1]),
            link_taken=Subquery(links.values("taken")[:1]),
            released=Subquery(takes.filter(released__isnull=False).values("hosted_url")[:1]),
            held_take=Subquery(takes.filter(released__isnull=True).values("pk")[:1]),
        )
        .first()
    )
    return facts or dict.fromkeys(("link_pk", "link_venue", "link_taken", "released", "held_take"))


def check_authority(
    tournament: Tournament | None, actor: Any = None, *, facts: dict[str, Any] | None = None
) -> None:
    """Refuse a write to a tournament this instance does not hold (venue mode).

    One writer per tournament: on the hosted site a tournament a venue has taken is a read
    replica until the link is revoked (only the link itself, ``LinkActor``, writes to it);
    on a venue instance a tournament handed back to its hosted site is no longer this
    instance's to change. Every service reaches this through :func:`require`, and the audit
    hook of tournament.services.venue checks it again for the doors that check their caller
    themselves (a player's self-entry link, an import), so no write slips past it. ``facts``
    is :func:`authority_facts` when the caller read them already.
    """
    if tournament is None or tournament.pk is None:
        return
    if isinstance(getattr(actor, "user", None), LinkActor):
        actor = actor.user  # an audit Actor carrying the link
    if facts is None:
        facts = authority_facts(tournament.pk)
    link_pk = facts["link_pk"]
    if link_pk is not None:
        if isinstance(actor, LinkActor) and actor.link_id == link_pk:
            return
        if isinstance(actor, VenueLink) and actor.pk == link_pk:
            return
        raise ServiceError(
            "venue_holds_authority",
            where=str(tournament),
            venue=facts["link_venue"],
            since=f"{facts['link_taken']:%Y-%m-%d %H:%M} UTC",
        )
    released = facts["released"]
    if released is not None and not isinstance(actor, VenueTake):
        raise ServiceError("venue_released", where=str(tournament), hosted=released)


def acting_user(actor: Any) -> Any | None:
    """The account behind ``actor``, or None for a trusted operator door.

    ``actor`` is what services take: a signed-in user (a page, the API, the admin, a command
    run ``--as`` someone), an ``Actor`` (tournament.services.audit) carrying one, or a plain
    name. A name, or an Actor without a user, is a door that checked its caller itself or
    needs no check: a management command run by whoever holds the server's shell (and so the
    database), a Celery task acting for a request already checked, a player's self-entry link
    (its token is checked by the self-entry service), the system's own jobs. None is the same
    (the audit trail records it as "system").
    """
    if actor is None or isinstance(actor, str):
        return None
    if hasattr(actor, "is_authenticated"):
        return actor  # a user, signed in or anonymous
    return getattr(actor, "user", None)  # an Actor


def allowed(actor: Any, action: str, obj: Any = None) -> bool:
    """Whether ``actor`` may take ``action`` on ``obj`` (a trusted door always may)."""
    check, _who = ACTIONS[action]
    user = acting_user(actor)
    return user is None or check(user, obj)


def require(actor: Any, action: str, obj: Any = None, *, what: str) -> None:
    """Refuse ``actor`` unless it may take ``action`` on ``obj``: ServiceError ``not_allowed``
    naming who, what and where, raised before anything is written.

    ``what`` says the write in a few words ("record results", "pair rounds"), marked by the
    caller with ``gettext_noop``; ``obj`` is the tournament, club or rating list the action is
    checked against. ``what`` and the roles that may (``ACTIONS``) become Phrases: English in
    the error's params (the API's ``params``, the audit trail, the command line), worded in
    the reader's language when the refusal is read (a French director reads French words,
    not "register players").
    """
    if allowed(actor, action, obj):
        if action not in NOT_PLAY_WRITES and isinstance(obj, Tournament):
            check_authority(obj, actor)
        return
    user = acting_user(actor)
    name = user.get_username() if is_signed_in(user) else ""
    _check, who = ACTIONS[action]
    where = name_for(user, obj) if obj is not None else "Gibson"
    raise ServiceError(
        "not_allowed",
        user=name or Phrase(gettext_noop("an anonymous visitor")),
        what=what if isinstance(what, Phrase) else Phrase(what),
        where=where,
        who=Phrase(who),
    )


def visible_accounts(user: Any) -> QuerySet[Any]:
    """The accounts whose names ``user`` may see or look up: every one for a superuser; for
    anyone else themself and the directors and scorekeepers of the tournaments they direct
    (club nights through their club). A director adds staff by making an account or by an
    invite link, so nothing they do needs the site's list of accounts, and a face that looks
    an account up by id or name in this set cannot be used to learn who else exists."""
    users = get_user_model().objects.all()
    if not is_signed_in(user):
        return users.none()
    if user.is_superuser:
        return users
    directed = Tournament.objects.filter(
        Q(directors=user) | Q(club_night__club__organisers=user)
    ).values("pk")
    return users.filter(
        Q(pk=user.pk) | Q(directed_tournaments__in=directed) | Q(scorekept_tournaments__in=directed)
    ).distinct()


def tournament_staff(user: Any, tournament: Tournament) -> QuerySet[Any]:
    """This tournament's directors and scorekeepers as ``user`` may look them up (see
    ``visible_accounts``): the accounts a staff page names and acts on, nobody else."""
    return visible_accounts(user).filter(
        Q(directed_tournaments=tournament) | Q(scorekept_tournaments=tournament)
    )


# --- site-wide rights: granted by a site administrator, never by a local role -----------------

CREATE_TOURNAMENT_PERMISSION = "tournament.create_tournament"


def can_open_rating_list(user: Any, _obj: Any = None) -> bool:
    """May open a new rating list: a superuser, or an account a site administrator granted
    ``ratings.add_ratinglist`` (the admin's own right to add one). The opener becomes its first
    officer; a list's ratings move every later rating on it, so no director gets this by
    directing."""
    return bool(is_signed_in(user) and user.has_perm("ratings.add_ratinglist"))


def can_create_tournament(user: Any) -> bool:
    """May start a tournament (typed in or uploaded): a superuser, or an account a site
    administrator granted ``tournament.create_tournament``. Directing, scorekeeping and
    organising a club bring no such right (a club's organisers start its nights without it)."""
    return bool(is_signed_in(user) and user.has_perm(CREATE_TOURNAMENT_PERMISSION))


def can_use_admin(user: Any) -> bool:
    """The admin is for repairs by superusers and by the officers a site administrator named
    and marked staff: keepers of the player registry (``tournament.manage_registry``) and
    officers of a rating list that is not a club's own (a club's organisers are its list's
    officers by founding it, which names no one). Directing a tournament never opens it."""
    from ratings.models import RatingList

    if not (is_signed_in(user) and user.is_staff):
        return False
    if user.is_superuser or user.has_perm("tournament.manage_registry"):
        return True
    return RatingList.objects.filter(officers=user, club__isnull=True).exists()


def can_found_club(user: Any) -> bool:
    """Any confirmed account founds a club (sign-up leaves an account inactive until its
    e-mail address is confirmed, so a signed-in account is a confirmed one). With
    GIBSON_CLUB_APPROVAL set, a superuser founds it on the organiser's behalf and hands it
    over by adding them as an organiser."""
    if not is_signed_in(user):
        return False
    return bool(user.is_superuser or not settings.CLUB_APPROVAL)
