"""Who may do what: the one home of the role checks every interface and service uses.

It sits in the base layer (beside checks and errors), so selectors, services and every face
(pages, API, admin, commands, tasks) ask the same questions the same way instead of each
re-implementing them. The rules:

- a tournament is changed only by its directors (and site superusers); a club night is
  directed by its club's organisers;
- scorekeepers only enter and correct results;
- a draft tournament is seen only by its staff; a published one by everyone;
- account names are seen by superusers, and by a director only for the staff of the
  tournaments they direct (never the site's whole list, never a superuser's name otherwise).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from .models import Tournament


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
    """Published tournaments are public; a draft only for its staff."""
    return tournament.published or can_keep_score(user, tournament)


def visible_tournaments(user: Any) -> QuerySet[Tournament]:
    """Published tournaments, and the drafts this user directs or keeps score for."""
    qs = Tournament.objects.all()
    if is_signed_in(user) and user.is_superuser:
        return qs
    if not is_signed_in(user):
        return qs.filter(published=True)
    staff = Q(directors=user) | Q(scorekeepers=user)
    return qs.filter(pk__in=Tournament.objects.filter(Q(published=True) | staff).values("pk"))


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


# --- site-wide rights (issue 19): granted by a site administrator, never by a local role ------

CREATE_TOURNAMENT_PERMISSION = "tournament.create_tournament"


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
