"""The tournament domain: players, clubs, tournaments, divisions, entries, rounds, games, audit.

Games are the truth: standings, records, starts/replies and Gibson status are derived from
them (see tournament.standings). Every write goes through tournament.services, one transaction
per call, and leaves an AuditEvent.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.functional import cached_property

from .formats.limits import MAX_SCORE

# Scores a game may carry at all; the service layer applies the finer rules of docs/rules.md
# (0..1500 for played games, negatives only for byes, forfeits and penalties).
MAX_ABS_SCORE = MAX_SCORE


def keep_version(obj: models.Model, kwargs: dict, args: tuple) -> None:
    """Leave ``content_version`` out of an UPDATE that would write every field (see
    Tournament.save); inserts and explicit ``update_fields`` are left as they are."""
    if obj._state.adding or args or kwargs.get("update_fields") is not None:
        return
    if kwargs.get("force_insert"):
        return
    kwargs["update_fields"] = [
        f.name
        for f in obj._meta.concrete_fields
        if not f.primary_key and f.name != "content_version"
    ]


class Realm(models.TextChoices):
    """Federation presets: each fills defaults (bye spread, rating system) a director can change."""

    NASPA = "nsa", "NASPA (North America)"
    WESPA = "wespa", "WESPA (world)"
    ABSP = "absp", "ABSP (UK)"
    AUS = "aus", "Australia"
    THAI = "thai", "Thailand"
    OTHER = "other", "Other"


REALM_DEFAULTS: dict[str, dict[str, object]] = {
    Realm.NASPA: {"bye_spread": 50, "forfeit_spread": -50, "rating_system": "nsa2008"},
    Realm.WESPA: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "wespa-tsh"},
    Realm.ABSP: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "absp"},
    Realm.AUS: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "aus"},
    Realm.THAI: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "wespa-tsh"},
    Realm.OTHER: {"bye_spread": 50, "forfeit_spread": -50, "rating_system": "nsa2008"},
}


class PaperSize(models.TextChoices):
    LETTER = "letter", "US Letter"
    A4 = "a4", "A4"


class Club(models.Model):
    """A club that meets to play: its members, organisers, nights (tournament.clubs) and list.

    Its organisers run its nights, members and seasons and nothing else; each night is a
    one-division Tournament (tournament.clubs.models.Night), and every club game is rated on
    the club's own ``rating_list`` (NASPA rates club games at one third: ``club-third``).
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    city = models.CharField(max_length=100, blank=True)
    country = models.CharField(max_length=100, blank=True)
    meets = models.CharField(
        max_length=300, blank=True, help_text='where and when it meets ("Tuesdays 7pm, Library")'
    )
    realm = models.CharField(
        max_length=10,
        choices=Realm.choices,
        default=Realm.NASPA,
        help_text="the federation whose rules its nights follow (bye and forfeit spreads)",
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_clubs", blank=True
    )
    rating_list = models.OneToOneField(
        "ratings.RatingList",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="club",
        help_text="the club's own list: every club game is rated on it",
    )
    newcomer_rating = models.PositiveIntegerField(
        default=1000,
        help_text="the club rating a player starts from when no rating list rates them yet "
        "(a list of newcomers only has nobody to be measured against)",
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    # Club pages are cached under this number; audit() adds 1 with every write to the club,
    # its members, seasons and nights (and to any game of its nights).
    content_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """As Tournament.save: only audit()'s F() update moves content_version."""
        keep_version(self, kwargs, args)
        super().save(*args, **kwargs)

    def is_organiser(self, user) -> bool:
        """A club's organisers (and site superusers) run its nights, members and seasons."""
        if user is None or not user.is_authenticated or not user.is_active:
            return False
        return user.is_superuser or self.organisers.filter(pk=user.pk).exists()


class Player(models.Model):
    """A person who plays; the same Player plays in many tournaments and rating lists."""

    name = models.CharField(max_length=200, help_text='"Surname, Given", as federations list it')
    naspa_id = models.CharField("NASPA id", max_length=20, blank=True)
    wespa_id = models.CharField("WESPA id", max_length=20, blank=True)
    absp_id = models.CharField("ABSP id", max_length=20, blank=True)
    country = models.CharField(max_length=100, blank=True)
    email = models.EmailField(blank=True)
    phone = models.CharField(max_length=40, blank=True)
    # Two people of one name in one event: what the director said tells this one apart ("from
    # Leeds", "Jr."), shown beside the name wherever the director picks or lists players.
    note = models.CharField(
        max_length=100,
        blank=True,
        help_text="what tells this player apart from another of the same name",
    )
    clubs = models.ManyToManyField(Club, through="Membership", related_name="players", blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        # Directors and organisers may add players; changing who a player is (name, ids,
        # contact details) or merging two is the registry's job, across every tournament.
        permissions = [
            ("manage_registry", "Can change players' names, ids and contact details, and merge"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["naspa_id"], condition=~Q(naspa_id=""), name="unique_naspa_id"
            ),
            models.UniqueConstraint(
                fields=["wespa_id"], condition=~Q(wespa_id=""), name="unique_wespa_id"
            ),
            models.UniqueConstraint(
                fields=["absp_id"], condition=~Q(absp_id=""), name="unique_absp_id"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A player's place in a club: a member (active or lapsed) or a guest who came to a night."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships")
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    since = models.DateField(null=True, blank=True, help_text="joined")
    until = models.DateField(null=True, blank=True)
    active = models.BooleanField(default=True, help_text="lapsed members keep their history")
    guest = models.BooleanField(default=False, help_text="a visitor, not a member")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "club"], name="one_membership_per_club"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.club}"


class Tournament(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=120, unique=True)
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    venue = models.CharField(max_length=200, blank=True)
    realm = models.CharField(max_length=10, choices=Realm.choices, default=Realm.NASPA)
    bye_spread = models.IntegerField(default=50, help_text="spread a bye scores (a win)")
    forfeit_spread = models.IntegerField(default=-50, help_text="spread a forfeit scores (a loss)")
    spread_cap = models.PositiveIntegerField(
        null=True, blank=True, help_text="each game's spread is clipped to +-cap when summed"
    )
    spread_caps = models.JSONField(
        default=list,
        blank=True,
        help_text="per-round caps (item 0 = round 1; the last holds on), as TSH's "
        "spread_cap = [100, 100, 150]; empty: spread_cap alone",
    )
    standings_spread_cap = models.BooleanField(
        default=False, help_text="apply the cap only for ranking; show the real spread"
    )
    sum_before_spread = models.BooleanField(
        default=False, help_text="rank by total points scored before spread"
    )
    max_rounds = models.PositiveIntegerField(null=True, blank=True)
    gibson = models.BooleanField(default=True, help_text="Gibsonize leaders who cannot be caught")
    gibson_spread = models.PositiveIntegerField(default=500)
    late_entry = models.CharField(
        max_length=10,
        choices=[
            ("forfeit", "forfeit for missed rounds"),
            ("bye", "bye scored 0"),
            ("none", "no record"),
        ],
        default="forfeit",
        help_text="what a late entry gets for rounds already paired",
    )
    paper = models.CharField(max_length=10, choices=PaperSize.choices, default=PaperSize.LETTER)
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="directed_tournaments", blank=True
    )
    scorekeepers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        related_name="scorekept_tournaments",
        blank=True,
        help_text="may enter and correct results, nothing else",
    )
    published = models.BooleanField(
        default=False, help_text="a draft (unpublished) tournament is hidden from public pages"
    )
    config = models.JSONField(
        default=dict, blank=True, help_text="other settings kept from an imported config.tsh"
    )
    # The round clock's length when a director starts it without giving one (issue 22).
    round_minutes = models.PositiveSmallIntegerField(
        default=25, help_text="minutes on the round clock unless the start says otherwise"
    )
    created = models.DateTimeField(auto_now_add=True)
    # An import in progress (tournament.interchange.imports writes it in short transactions):
    # hidden from public pages, the console's list and its pages until the last one clears it.
    importing = models.BooleanField(default=False, editable=False)
    # Public pages are cached under this number: audit() adds 1 (an F() update) in the same
    # transaction as every write, so a cached page can never outlive the data it was built on.
    content_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-start_date", "name"]
        # Given by a site administrator (admin or ``manage_user --may-create-tournaments``):
        # directing a tournament, organising a club or keeping score never brings it.
        permissions = [("create_tournament", "Can create tournaments (typed in or uploaded)")]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__isnull=True)
                | Q(start_date__isnull=True)
                | Q(end_date__gte=models.F("start_date")),
                name="tournament_ends_after_start",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A full save of a loaded copy never writes content_version back: only audit()'s
        F() update moves it, so a stale copy cannot turn it back to a number already used."""
        keep_version(self, kwargs, args)
        super().save(*args, **kwargs)

    @property
    def spread_cap_rule(self) -> int | list[int] | None:
        """The caps the standings apply: the per-round list when there is one, else the single
        cap (or None). Kept as one place so standings, ranks and files agree."""
        caps = [int(c) for c in (self.spread_caps or [])]
        if caps:
            return caps
        return self.spread_cap

    @property
    def spread_cap_list(self) -> list[int]:
        """The caps in TSH's list form (``[250]`` for one cap; ``[]`` for none): TSH's tsh.js
        caps only when given a list, so files carry this form."""
        rule = self.spread_cap_rule
        if rule is None:
            return []
        return list(rule) if isinstance(rule, list) else [rule]

    def is_director(self, user) -> bool:
        """Only a tournament's own directors (or site superusers) may change it; a club
        night is directed by its club's organisers (the ones of today, not of that night)."""
        if user is None or not user.is_authenticated or not user.is_active:
            return False
        if user.is_superuser or self.directors.filter(pk=user.pk).exists():
            return True
        return Club.objects.filter(nights__tournament=self, organisers=user).exists()

    def is_scorekeeper(self, user) -> bool:
        """Directors keep score too; scorekeepers only keep score."""
        if self.is_director(user):
            return True
        if user is None or not user.is_authenticated or not user.is_active:
            return False
        return self.scorekeepers.filter(pk=user.pk).exists()


slug_validator = RegexValidator(
    r"\A[a-z0-9]+(?:-[a-z0-9]+)*\Z",
    "use lower-case letters, digits and single hyphens (like a or open-2)",
)


class Division(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="divisions")
    name = models.CharField(max_length=50)
    # URLs use the slug, never the name: a name is free text ("A/B", "../../admin").
    slug = models.CharField(max_length=50, validators=[slug_validator])
    prize_places = models.PositiveIntegerField(
        default=0, help_text="places that win a prize (contention pairing and the live feed)"
    )
    position = models.PositiveIntegerField(default=0)
    rounds = models.PositiveIntegerField(
        default=7, help_text="configured number of rounds (cuts rating segments)"
    )
    rating_system = models.CharField(max_length=20, default="nsa2008")
    rating_list = models.ForeignKey(
        "ratings.RatingList",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="divisions",
    )
    file_name = models.CharField(max_length=100, blank=True, help_text="TSH .t file name")
    config = models.JSONField(default=dict, blank=True, help_text="per-division settings")

    class Meta:
        ordering = ["tournament", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "name"], name="unique_division_name"),
            models.UniqueConstraint(fields=["tournament", "slug"], name="unique_division_slug"),
            models.CheckConstraint(condition=~Q(slug=""), name="division_slug_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} - {self.name}"

    @cached_property
    def shares_board_numbers(self) -> bool:
        """True when another division of the tournament exists: each division numbers its
        boards from 1 (as TSH and the interchange exports do), so "board 3" alone sends two
        players to different tables and whatever shows a board to players names the division."""
        return Division.objects.filter(tournament_id=self.tournament_id).count() > 1

    def board_name(self, board: int) -> str:
        """The board as players read it: "board 3", or "division A, board 3" when another
        division has its own board 3."""
        return (
            f"division {self.name}, board {board}"
            if self.shares_board_numbers
            else f"board {board}"
        )


class Entry(models.Model):
    """A player in a division: their number there, seed rating and status.

    ``entry_token`` is the secret of the player's self-entry link (the scorecard's QR code):
    kept as the token itself, not its hash, so reprinted cards carry the same link; see the
    field's comment for why, and tournament.services.selfentry for its use.
    """

    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    number = models.PositiveIntegerField(help_text="player number in the division (1-based)")
    seed_rating = models.IntegerField(default=0, help_text="pre-event rating; 0 = unrated")
    career_games = models.PositiveIntegerField(
        null=True, blank=True, help_text="rated games before the event (TSH lifeg)"
    )
    player_class = models.CharField("class", max_length=10, blank=True)
    withdrawn_round = models.PositiveIntegerField(
        null=True, blank=True, help_text="first round the player no longer plays"
    )
    withdrawal_score = models.IntegerField(
        null=True, blank=True, help_text="score recorded for each round after withdrawal (TSH off)"
    )
    extra = models.JSONField(
        default=list,
        blank=True,
        help_text="other TSH fields as [key, [values]] pairs, kept in file order",
    )
    # Self-entry (tournament.services.selfentry): the secret in the scorecard's QR link
    # /e/TOKEN/, with which the player reports their own results. The token itself is kept,
    # not a hash of it: directors re-print scorecards every round or two, and a reprint must
    # carry the same link as the card already in the player's hand (a hash would force a new
    # token, and so a dead old card, at every print). What a database reader gains is the
    # power to report a game's scores, which the opponent must still confirm and a director
    # overrides; whoever reads the database can change the results anyway. NULL = no link yet
    # (made when scorecards are printed); unique, so a lookup by token is one index probe.
    entry_token = models.CharField(
        max_length=64, null=True, blank=True, unique=True, editable=False, default=None
    )
    # When a director last revoked the link: a revoked entry gets no new token from a reprint
    # (the card prints the public page instead) until a director issues one again.
    entry_token_revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Check-in on the day (issue 22, tournament.services.checkin): set when the player checks
    # in from their own link or a director taps them in. On the Entry, not on an online entry,
    # so players the director registered by hand check in the same way.
    checked_in_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["division", "number"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["division", "number"], name="unique_player_number"),
            models.UniqueConstraint(fields=["division", "player"], name="player_once_per_division"),
            models.CheckConstraint(condition=Q(number__gte=1), name="player_number_positive"),
            models.CheckConstraint(
                condition=Q(withdrawn_round__isnull=True) | Q(withdrawn_round__gte=1),
                name="withdrawn_round_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.number} {self.player.name}"

    def clean(self) -> None:
        """Numbers run 1..N without gaps: a new entry is N+1, and a number never changes.

        Pairings, tourney.js and .t exports index players by number; a gap or a moved number
        makes every reader that expects 1..N fail (a KeyError on the public pages).
        """
        super().clean()
        if self.division_id is None or self.number is None:
            return
        if self._state.adding:
            count = Entry.objects.filter(division_id=self.division_id).count()
            if self.number != count + 1:
                raise ValidationError(
                    {
                        "number": f"the next player number in this division is {count + 1}, "
                        f"not {self.number}"
                    }
                )
            return
        stored = Entry.objects.filter(pk=self.pk).values_list("division_id", "number").first()
        if stored is not None and stored != (self.division_id, self.number):
            raise ValidationError(
                {"number": "a player's division and number do not change once entered"}
            )

    @property
    def name(self) -> str:
        return self.player.name

    def extra_field(self, key: str) -> list[str] | None:
        for k, values in self.extra:
            if k == key:
                return values
        return None


class Round(models.Model):
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveIntegerField()
    system = models.CharField(max_length=20, blank=True, help_text="pairing system used")
    paired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["division", "number"]
        constraints = [
            models.UniqueConstraint(fields=["division", "number"], name="unique_round_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.division} round {self.number}"


class First(models.IntegerChoices):
    """Who went first, as TSH's p12 seen from player1: 0 none (bye), 1 player1, 2 player2."""

    NONE = 0, "none (bye)"
    PLAYER1 = 1, "player 1 went first"
    PLAYER2 = 2, "player 2 went first"
    DRAW = 3, "must draw"
    UNKNOWN = 4, "unknown"


class Game(models.Model):
    """One board in one round: two entries, or one entry alone for a bye or forfeit.

    A game with no player2 is a bye when its score is positive, a forfeit loss when negative,
    and neither when 0 (docs/rules.md). Scores stay empty until the result is recorded; both
    scores are set together, so a game has exactly one result.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="games")
    board = models.PositiveIntegerField(null=True, blank=True)
    player1 = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="games_as_player1")
    player2 = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="games_as_player2", null=True, blank=True
    )
    score1 = models.IntegerField(null=True, blank=True)
    score2 = models.IntegerField(null=True, blank=True)
    first = models.PositiveSmallIntegerField(choices=First.choices, default=First.UNKNOWN)
    explanation = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["round", "board", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(player1=models.F("player2")), name="game_not_against_self"
            ),
            models.CheckConstraint(
                condition=Q(score1__isnull=True)
                | Q(score1__gte=-MAX_ABS_SCORE, score1__lte=MAX_ABS_SCORE),
                name="score1_in_range",
            ),
            models.CheckConstraint(
                condition=Q(score2__isnull=True)
                | Q(score2__gte=-MAX_ABS_SCORE, score2__lte=MAX_ABS_SCORE),
                name="score2_in_range",
            ),
            # A played game's result is both scores or neither; a bye has no second score.
            models.CheckConstraint(
                condition=Q(player2__isnull=True, score2__isnull=True)
                | Q(player2__isnull=False, score1__isnull=True, score2__isnull=True)
                | Q(player2__isnull=False, score1__isnull=False, score2__isnull=False),
                name="game_result_complete",
            ),
            models.CheckConstraint(condition=Q(first__lte=4), name="first_is_p12_value"),
            # Negative scores are for byes, forfeits and penalties only (docs/rules.md): a
            # played game's scores are 0..MAX_ABS_SCORE whichever door wrote them.
            models.CheckConstraint(
                condition=Q(player2__isnull=True)
                | Q(score1__isnull=True)
                | Q(score1__gte=0, score2__gte=0),
                name="played_scores_not_negative",
            ),
        ]

    def __str__(self) -> str:
        other = self.player2.player.name if self.player2_id else "bye"
        return f"R{self.round.number}: {self.player1.player.name} v {other}"

    @property
    def is_bye(self) -> bool:
        return self.player2_id is None

    @property
    def has_result(self) -> bool:
        return self.score1 is not None

    # Display order. Every page, printed sheet and the ``b12 412 389`` line list the player who
    # starts first, so what a scorekeeper reads on a table's sheet is what they type; the stored
    # order (player1/player2, the API's keys, the .t files) stays as it is. When who starts is
    # not settled (to draw, unknown) the stored order stands and ``first_settled`` says so.

    @property
    def starts_reversed(self) -> bool:
        """Whether the stored player2 starts, so the display swaps the two players."""
        return self.player2_id is not None and self.first == First.PLAYER2

    @property
    def first_settled(self) -> bool:
        """Whether who starts is known (a bye or forfeit has nobody to start against)."""
        return self.player2_id is None or self.first in (First.PLAYER1, First.PLAYER2)

    @property
    def first_entry(self) -> Entry:
        """The player listed first: the one who starts, else player1."""
        return self.player2 if self.starts_reversed else self.player1

    @property
    def second_entry(self) -> Entry | None:
        """The player listed second (None for a bye or forfeit)."""
        return self.player1 if self.starts_reversed else self.player2

    @property
    def score_first(self) -> int | None:
        return self.score2 if self.starts_reversed else self.score1

    @property
    def score_second(self) -> int | None:
        return self.score1 if self.starts_reversed else self.score2

    def division_mismatch(self) -> str:
        """Why a player of this game is not an entry of its round's division ("" if all are).

        Standings, tourney.js and .t exports look opponents up among the division's entries;
        an entry of another division there is a KeyError on every page that reads the round.
        Uses the related objects already loaded (the services pass them), else one query.
        """
        if self.round_id is None or self.player1_id is None:
            return ""
        sides = [(1, self.player1_id), (2, self.player2_id)]
        sides = [(side, pk) for side, pk in sides if pk is not None]
        cached = Game.round.is_cached(self)
        division_id = self.round.division_id if cached else None
        divisions: dict[int, int] = {}
        missing = []
        for side, pk in sides:
            field = Game.player1 if side == 1 else Game.player2
            if field.is_cached(self):
                divisions[pk] = getattr(self, f"player{side}").division_id
            else:
                missing.append(pk)
        if missing:
            divisions.update(Entry.objects.filter(pk__in=missing).values_list("pk", "division_id"))
        if division_id is None:
            division_id = (
                Round.objects.filter(pk=self.round_id).values_list("division_id", flat=True).first()
            )
        for side, pk in sides:
            if divisions.get(pk) != division_id:
                return f"player {side} is not an entry of this round's division"
        return ""

    def clean(self) -> None:
        super().clean()
        problem = self.division_mismatch()
        if problem:
            field = "player1" if problem.startswith("player 1") else "player2"
            raise ValidationError({field: problem})

    def save(self, *args, **kwargs) -> None:
        """Keep the seat index in step, so the database refuses a player twice in one round.

        A game whose players are not entries of its round's division is refused here too (the
        database cannot say so): saving only the scores skips that check.
        """
        fields = kwargs.get("update_fields")
        players = {"round", "player1", "player2", "round_id", "player1_id", "player2_id"}
        if fields is None or players & set(fields):
            problem = self.division_mismatch()
            if problem:
                raise ValidationError(problem)
        super().save(*args, **kwargs)
        wanted = {1: self.player1_id, 2: self.player2_id}
        Seat.objects.filter(game=self).exclude(
            side__in=[s for s, e in wanted.items() if e is not None]
        ).delete()
        for side, entry_id in wanted.items():
            if entry_id is not None:
                Seat.objects.update_or_create(
                    game=self, side=side, defaults={"entry_id": entry_id, "round_id": self.round_id}
                )


class Seat(models.Model):
    """Index of who sits where: one row per player per round, derived from Game.

    A unique index over two columns of Game cannot say "this entry is in at most one game of
    the round"; one row per seated player can.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="seats")
    side = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "entry"], name="player_once_per_round"),
            models.UniqueConstraint(fields=["game", "side"], name="one_player_per_side"),
            models.CheckConstraint(condition=Q(side__in=[1, 2]), name="side_is_1_or_2"),
        ]


class AuditEvent(models.Model):
    """Who changed what, when, with the state before and after: a tournament's replayable trail."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="audit_events", null=True, blank=True
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    actor = models.CharField(max_length=100, help_text="user name or the command that acted")
    action = models.CharField(max_length=50, db_index=True)
    object_type = models.CharField(max_length=50, blank=True)
    object_id = models.CharField(max_length=50, blank=True)
    summary = models.CharField(max_length=300, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor}: {self.action} {self.summary}"


class PendingResult(models.Model):
    """A result typed but not yet recorded: one card of a double entry, or a player's self-entry.

    It stays pending until a second report agrees (then ``record_result`` records the game and
    the pending rows are marked confirmed) or disagrees (both are marked disputed for a
    director). Scores are in the game's own order (player1's score first).
    """

    class Source(models.TextChoices):
        CONSOLE = "console", "double entry in the console"
        PLAYER = "player", "player's self-entry"

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for the other card"
        DISPUTED = "disputed", "the two reports disagree"
        CONFIRMED = "confirmed", "agreed and recorded"
        SUPERSEDED = "superseded", "a director recorded the game"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="pending_results")
    reporter = models.ForeignKey(
        Entry,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="reported_results",
        help_text="the player who reported it (self-entry); empty for a console card",
    )
    score1 = models.IntegerField()
    score2 = models.IntegerField()
    source = models.CharField(max_length=10, choices=Source.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    actor = models.CharField(max_length=100, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(score1__gte=0, score1__lte=MAX_ABS_SCORE)
                & Q(score2__gte=0, score2__lte=MAX_ABS_SCORE),
                name="pending_scores_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game}: {self.score1}-{self.score2} ({self.status})"


class StaffInvite(models.Model):
    """A one-time sign-up link that makes its user a director or scorekeeper of one tournament."""

    class Role(models.TextChoices):
        DIRECTOR = "director", "co-director"
        SCOREKEEPER = "scorekeeper", "scorekeeper (results only)"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="invites")
    role = models.CharField(max_length=12, choices=Role.choices)
    # Only the SHA-256 of the token is kept: a leaked database does not leak usable links.
    token_hash = models.CharField(max_length=64, unique=True)
    email = models.EmailField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.get_role_display()} invite to {self.tournament}"


class ImportJob(models.Model):
    """An upload being imported in the background (issue 19): the request stores the files and
    this row and answers at once; a Celery worker, or a thread of the web process when no
    worker answers, reads and writes it in short transactions, reporting progress here.

    Only its uploader (and a site superuser) follows it (``access.can_follow_import``). A job
    whose runner went away (a restart) is marked failed the next time it is looked at.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    class Kind(models.TextChoices):
        UPLOAD = "upload", "console upload"
        COMMAND = "command", "import_tsh"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.UPLOAD)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="import_jobs",
    )
    source = models.CharField(max_length=100, help_text="the uploaded file's name")
    options = models.JSONField(default=dict, blank=True, help_text="name and rounds given")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    runner = models.CharField(
        max_length=200, blank=True, help_text="celery, or thread:HOST:PID:BOOT of the web process"
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    phrase = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    # what a finished import tells its director without refusing (ranks and estimates TSH
    # printed before a later change, autopair lines left out, ...)
    warnings = models.JSONField(default=list, blank=True)
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="import_jobs",
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # moved at every batch: a running job whose heartbeat stopped lost its runner
    heartbeat = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"import of {self.source} ({self.state})"

    @property
    def finished_state(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)


class ImportFile(models.Model):
    """One uploaded file of an import job, kept in the database (so a worker on another
    machine reads it too) until the job ends; at most GIBSON_MAX_UPLOAD_MB in all."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="files")
    position = models.PositiveSmallIntegerField(default=0, help_text="0: the main file")
    name = models.CharField(max_length=100)
    content = models.BinaryField()

    class Meta:
        ordering = ["position"]


# --- before and after play: the round clock and the director's announcement (issue 22) -------


class RoundClock(models.Model):
    """The clock of one division's round, kept as server times only (no browser's clock is
    trusted): when it started, how long it was paused, and each extension with its reason.

    Per division round, as rounds are stored (a division may run a round behind the others, or
    pair late); its state is derived: not started (no ``started_at``), paused (``paused_at``),
    running, or over once the end has passed (tournament.clock computes it). Keyed by the
    division and the round's number rather than the Round row, so unpairing and re-pairing a
    round keeps its clock. Every change is a service call with an audit event.
    """

    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="clocks")
    round_number = models.PositiveIntegerField()
    minutes = models.PositiveSmallIntegerField(help_text="the round's length as started")
    started_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_seconds = models.PositiveIntegerField(
        default=0, help_text="seconds spent paused by pauses already resumed"
    )
    # [{"minutes": 2, "reason": "fire alarm", "at": ISO time, "by": name}, ...]
    extensions = models.JSONField(default=list, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["division", "round_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["division", "round_number"], name="one_clock_per_division_round"
            ),
            models.CheckConstraint(
                condition=Q(round_number__gte=1), name="clock_round_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.division} round {self.round_number} clock"


class Announcement(models.Model):
    """The director's short notice to the room (one per tournament): shown on the tournament
    page, the venue screen and players' pages until it is cleared or its ``until`` passes."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="announcement"
    )
    text = models.CharField(max_length=280)
    until = models.DateTimeField(null=True, blank=True, help_text="hidden after this time")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.tournament}: {self.text[:40]}"


# --- notices: e-mail to entrants who opted in (issue 22, item 3) -----------------------------


class NoticeSubscription(models.Model):
    """One player's opt-in to one tournament's e-mail notices (entry, waiting list, pairings,
    final results), to one address.

    The unsubscribe link in every mail carries a token derived from ``token_salt`` with the
    site's secret key (tournament.services.notices); only the token's SHA-256 is looked up, so
    the database alone gives no working link. Unsubscribing keeps the row (``active`` off) so
    the log of what was sent still names whom it went to.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="notice_subscriptions"
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="notice_subscriptions"
    )
    email = models.EmailField()
    token_salt = models.CharField(max_length=32, editable=False)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)
    unsubscribed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "player__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="one_notice_subscription_per_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} notices of {self.tournament}"


class Notice(models.Model):
    """One e-mail to one subscriber, and what became of it: the director's log of notices.

    Written ``queued`` in the transaction that decided to send it (or, for pairings, right
    after the pairing's own transaction committed), then ``sent`` or ``failed`` (with the
    mail server's words) by the task that hands it to the mail server. ``key`` is what the
    notice said in short (a pairing's board, opponent and start), so a re-paired round sends
    a correction only to the players whose pairing changed.

    An entry's or a sign-up's mail (issue 33) is a notice to ``email`` with no subscription
    (a sign-up's, no tournament either); its body holds each link's nonce, never the link: the
    secret is derived from it with the site's key as it is sent (tournament.services.notices).
    """

    class Kind(models.TextChoices):
        ENTRY = "entry", "entry confirmed"
        WAITING = "waiting", "on the waiting list"
        PROMOTED = "promoted", "off the waiting list"
        PAIRING = "pairing", "pairing"
        RESULTS = "results", "final results"
        # mails to an address, not to a subscriber (issue 33: one mail path)
        ENTRY_LINK = "entry_link", "entry confirmation link"
        ENTRY_PAGE = "entry_page", "entrant's page"
        ENTRY_HELD = "entry_held", "entry awaiting the player"
        SIGN_UP = "sign_up", "sign-up confirmation"

    class State(models.TextChoices):
        QUEUED = "queued", "queued"
        SENT = "sent", "sent"
        FAILED = "failed", "failed"

    # None for a mail to an address (an entry's or a sign-up's link): ``email`` says where
    subscription = models.ForeignKey(
        NoticeSubscription, on_delete=models.CASCADE, related_name="notices", null=True, blank=True
    )
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="notices", null=True, blank=True
    )
    email = models.EmailField(blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    division = models.ForeignKey(
        Division, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    round_number = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=200, blank=True)
    subject = models.CharField(max_length=200)
    body = models.TextField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    error = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["subscription", "kind", "round_number"])]

    def __str__(self) -> str:
        to = self.subscription.player if self.subscription else "an address"
        return f"{self.get_kind_display()} to {to}: {self.state}"


# --- weekends and federation files (issue 22, items 5 and 6) ---------------------------------


class Weekend(models.Model):
    """Tournaments played by the same players one after another (early bird, main, late event).

    Each event's place is explicit (``WeekendEvent.position``): two events of one day are not
    ordered by their dates, yet NASPA rates them in the order they start (docs/weekends.md), so
    the rating lists take the order from here.
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=120, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "name"]

    def __str__(self) -> str:
        return self.name


class WeekendEvent(models.Model):
    """One tournament's place in its weekend (1 = first to start). A tournament is in at most
    one weekend. ``seed_from_earlier``: the event's entries are seeded from the ratings the
    earlier events of the weekend gave them when the weekend is submitted."""

    weekend = models.ForeignKey(Weekend, on_delete=models.CASCADE, related_name="events")
    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="weekend_place"
    )
    position = models.PositiveIntegerField()
    seed_from_earlier = models.BooleanField(
        default=False,
        help_text="seed entries from the ratings after the weekend's earlier events",
    )

    class Meta:
        ordering = ["weekend", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["weekend", "position"], name="one_event_per_weekend_place"
            ),
            models.CheckConstraint(condition=Q(position__gte=1), name="weekend_position_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.weekend} #{self.position}: {self.tournament}"


class FederationDownload(models.Model):
    """A federation file (NASPA, WESPA, ABSP) a director downloaded from the Federation files
    page: who, when, which file and its SHA-256, so a rating body's question "which file did
    you send?" has an answer. Not a submission to one of Gibson's own rating lists."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="federation_downloads"
    )
    federation = models.CharField(max_length=10)
    format = models.CharField(max_length=20)
    file_name = models.CharField(max_length=200)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    forced = models.BooleanField(default=False, help_text="downloaded despite problems found")
    problems = models.JSONField(default=list, blank=True, help_text="the problems shown then")
    downloaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    downloaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-downloaded_at", "-id"]

    def __str__(self) -> str:
        return f"{self.tournament}: {self.file_name} ({self.sha256[:12]})"


# --- before play: entries online and their waiting lists (issue 22) ---------------------------


class EntryWindow(models.Model):
    """A tournament's entries online: when the public entry form takes entries (``opens_at``
    to ``closes_at``, unless a director closed it early). Each division's own rule (cap, rating
    band, fee) is its ``DivisionEntryRule``; a division without one takes no online entries."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="entry_window"
    )
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="closed by a director before closes_at"
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(closes_at__gt=models.F("opens_at")), name="entry_window_order"
            ),
        ]

    def __str__(self) -> str:
        return f"entries to {self.tournament}"


class DivisionEntryRule(models.Model):
    """Who may enter a division online and how many: a cap (None: no limit), a rating band
    (``rating_min``..``rating_max``, either end open; both None: the player picks), and the
    fee as the director words it (no payment is taken here: a director marks it paid)."""

    division = models.OneToOneField(Division, on_delete=models.CASCADE, related_name="entry_rule")
    cap = models.PositiveIntegerField(null=True, blank=True)
    rating_min = models.PositiveIntegerField(null=True, blank=True)
    rating_max = models.PositiveIntegerField(null=True, blank=True)
    fee_amount = models.CharField(max_length=20, blank=True)
    fee_currency = models.CharField(max_length=10, blank=True)

    def __str__(self) -> str:
        return f"entry rule of {self.division}"

    @property
    def player_picks(self) -> bool:
        return self.rating_min is None and self.rating_max is None


class OnlineEntry(models.Model):
    """One person's entry through the public form: awaiting their e-mail confirmation, in the
    division (``entry`` is their Entry there), on its waiting list (ordered by
    ``waiting_since``), withdrawn or refused. Only hashes of the personal link's and the
    confirmation link's secrets are kept: a read of the database yields no usable link.
    ``email`` is contact data: it never appears on a public list or in the API's reads."""

    class Status(models.TextChoices):
        UNCONFIRMED = "unconfirmed", "awaiting e-mail confirmation"
        # an entry naming a registry player, made by someone not known to be them: it holds no
        # place and blocks no one until the player confirms it or a director approves it
        PENDING = "pending", "awaiting the player's confirmation or the director's approval"
        ENTERED = "entered", "entered"
        WAITING = "waiting", "on the waiting list"
        # a venue holds the tournament (issue 23): the entry is queued for it to settle
        SENT = "sent", "sent to the venue"
        WITHDRAWN = "withdrawn", "withdrawn"
        REFUSED = "refused", "refused"
        # a pending entry the director refused, or one left over when the player's own counted
        # (unlike "refused", it never bars the player from entering)
        DECLINED = "declined", "not confirmed for the player"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="online_entries"
    )
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="online_entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="online_entries")
    entry = models.OneToOneField(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="online"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="online_entries",
    )
    email = models.EmailField(blank=True)
    rating = models.PositiveIntegerField(default=0, help_text="seed rating entered with")
    status = models.CharField(max_length=12, choices=Status.choices)
    waiting_since = models.DateTimeField(null=True, blank=True)
    promoted_at = models.DateTimeField(null=True, blank=True)
    paid = models.BooleanField(default=False)
    notices = models.BooleanField(default=False, help_text="opted in to e-mail notices")
    # Whether the entrant gave this tournament's directors the registry player's contact
    # details (tournament.access.can_see_contact): the entry made the player (every detail on
    # the record is the entrant's own), or the address it was confirmed from (the mailed link,
    # or the hosted site's) is the one the registry holds. A signed-in entrant's typed address
    # is not checked by mail, so it proves nothing about an existing player's record.
    contact_shared = models.BooleanField(default=False, editable=False)
    link_hash = models.CharField(max_length=64, unique=True)
    confirm_hash = models.CharField(max_length=64, unique=True, null=True, blank=True)
    note = models.CharField(max_length=200, blank=True)
    # a waiting entrant here on the day, "if a place frees": removing the absent promotes them
    checked_in_at = models.DateTimeField(null=True, blank=True, editable=False)
    # on a copy a venue holds (issue 23): the entrant's place on the venue's waiting list, as
    # its last push said (the venue's list is the one that counts, not this copy's order)
    venue_position = models.PositiveIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "division", "waiting_since", "pk"]
        verbose_name_plural = "online entries"

    def __str__(self) -> str:
        return f"{self.player} in {self.division} ({self.status})"


# --- venue mode (issue 23): one writer per tournament, the hosted copy follows the venue ------


class VenueLink(models.Model):
    """On the hosted site: a tournament handed to a venue instance (a laptop at the venue).

    Its token (shown once; only its SHA-256 is kept) lets that venue download the tournament
    once and push its changes to it, and nothing else. From the moment the venue takes it
    (``taken``) until the link is revoked (a hand-back), the hosted tournament is a read
    replica: every service refuses a write naming the venue (tournament.access), except the
    apply-changes service acting as this link.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="venue_links")
    token_hash = models.CharField(max_length=64, unique=True)
    venue_name = models.CharField(max_length=100, help_text="what the venue is called")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    taken = models.DateTimeField(null=True, blank=True, help_text="when the venue downloaded it")
    revoked = models.DateTimeField(null=True, blank=True)
    revoked_by = models.CharField(max_length=100, blank=True)
    # the venue's change log as far as the hosted copy has applied it (exactly once, in order)
    last_seq_applied = models.PositiveBigIntegerField(default=0)
    last_push = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament"], condition=Q(revoked__isnull=True), name="one_live_venue_link"
            ),
        ]

    def __str__(self) -> str:
        return f"venue link of {self.tournament} to {self.venue_name}"

    @property
    def holds_authority(self) -> bool:
        return self.taken is not None and self.revoked is None


class VenueTake(models.Model):
    """On the venue instance: a tournament taken from a hosted site, with the link to push to.

    The token is kept as given (the venue must send it): it is the laptop's key to that one
    tournament on the hosted site and nothing more. ``next_seq`` numbers the change log;
    ``last_pushed_seq`` is what the hosted copy confirmed. Released (handed back), the local
    copy refuses writes: the hosted site is the authority again.
    """

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="venue_take"
    )
    hosted_url = models.URLField(max_length=300)
    token = models.CharField(max_length=100)
    taken = models.DateTimeField(auto_now_add=True)
    next_seq = models.PositiveBigIntegerField(default=1)
    last_pushed_seq = models.PositiveBigIntegerField(default=0)
    last_push = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    # {venue player pk: hosted player pk}, so a pushed entry names the hosted site's player
    player_refs = models.JSONField(default=dict, blank=True)
    released = models.DateTimeField(null=True, blank=True)
    # {hosted inbox id: [status, outcome]}: players' reports pulled from the hosted site and
    # settled here, each written with its settling, so a report is never entered twice
    inbox_done = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.tournament} taken from {self.hosted_url}"


class VenueChange(models.Model):
    """One write of a venue-held tournament, logged in the write's own transaction: what it
    touched (the whole tournament, a division, or one round of a division).

    The push sends the after-state of what the changes touched, read when it is sent (full
    rows keyed by natural keys: division slug, entry number, round number, game seats), so a
    resent batch is idempotent and a later state supersedes an earlier one; see
    tournament.services.venue.
    """

    class Scope(models.TextChoices):
        TOURNAMENT = "tournament"
        DIVISION = "division"
        ROUND = "round"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="venue_changes"
    )
    seq = models.PositiveBigIntegerField()
    kind = models.CharField(max_length=50, help_text="the audit action")
    scope = models.CharField(max_length=10, choices=Scope.choices)
    division_id_ref = models.PositiveBigIntegerField(null=True, blank=True)
    round_number = models.PositiveIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "seq"], name="one_venue_change_per_seq"),
        ]


class VenueInbox(models.Model):
    """On the hosted site: what a player sent while a venue holds the tournament (a result
    self-reported from their phone, an online entry, a check-in), queued for the venue to pull
    and settle through its own services; the player's page shows the outcome once the venue
    has answered."""

    class Kind(models.TextChoices):
        REPORT = "report", "a result reported"
        ENTRY = "entry", "an online entry"
        CHECK_IN = "check_in", "a check-in"
        WITHDRAW = "withdraw", "a withdrawal"

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the venue"
        ACCEPTED = "accepted", "entered at the venue"
        REFUSED = "refused", "refused at the venue"

    link = models.ForeignKey(VenueLink, on_delete=models.CASCADE, related_name="inbox")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.REPORT)
    # a report's or a check-in's player (an online entry has no Entry here until the venue's
    # push brings the one it made; the venue's push may remove one: its answers stay)
    entry = models.ForeignKey(
        Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="venue_reports"
    )
    online = models.ForeignKey(
        OnlineEntry, on_delete=models.CASCADE, null=True, blank=True, related_name="venue_inbox"
    )
    round_number = models.PositiveIntegerField(default=0)
    score = models.IntegerField(default=0, help_text="the player's own score")
    opp_score = models.IntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    outcome = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    settled = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.entry} round {self.round_number}: {self.score}-{self.opp_score}"
