"""The play itself: players, clubs, tournaments, divisions, entries, rounds, games, audit.

Games are the truth: standings, records, starts/replies and Gibson status are derived from
them (see tournament.standings). Every write goes through tournament.services, one transaction
per call, and leaves an AuditEvent.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy, pgettext_lazy

from ..formats.limits import MAX_SCORE
from ..namesearch import stored_key

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

    NASPA = "nsa", gettext_lazy("NASPA (North America)")
    WESPA = "wespa", gettext_lazy("WESPA (world)")
    ABSP = "absp", gettext_lazy("ABSP (UK)")
    AUS = "aus", gettext_lazy("Australia")
    THAI = "thai", gettext_lazy("Thailand")
    OTHER = "other", pgettext_lazy("a federation realm", "Other")


REALM_DEFAULTS: dict[str, dict[str, object]] = {
    Realm.NASPA: {"bye_spread": 50, "forfeit_spread": -50, "rating_system": "nsa2008"},
    Realm.WESPA: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "wespa-tsh"},
    Realm.ABSP: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "absp"},
    Realm.AUS: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "aus"},
    Realm.THAI: {"bye_spread": 100, "forfeit_spread": -100, "rating_system": "wespa-tsh"},
    Realm.OTHER: {"bye_spread": 50, "forfeit_spread": -50, "rating_system": "nsa2008"},
}


class PaperSize(models.TextChoices):
    LETTER = "letter", gettext_lazy("US Letter")
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
    # The name as searches compare it (tournament.namesearch.stored_key: no accents, nicknames
    # as their given name, a space each side), kept by save(); PostgreSQL indexes it for
    # trigram similarity.
    search_key = models.CharField(max_length=400, blank=True, editable=False)

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

    def save(self, *args, **kwargs) -> None:
        """Keep ``search_key`` with the name, so every way a player is made or renamed (the
        services, imports, the admin) leaves them findable."""
        self.search_key = stored_key(self.name)
        fields = kwargs.get("update_fields")
        if fields is not None and "name" in fields and "search_key" not in fields:
            kwargs["update_fields"] = [*fields, "search_key"]
        super().save(*args, **kwargs)


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
    # Where and in what lexicon, for the events calendar's filters.
    country = models.CharField(max_length=100, blank=True, help_text="e.g. Canada")
    region = models.CharField(
        max_length=100, blank=True, help_text="state, province or region (e.g. Ontario)"
    )
    lexicon = models.CharField(
        max_length=20, blank=True, help_text="the word list played (e.g. CSW24, NWL2023)"
    )
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
            ("forfeit", gettext_lazy("forfeit for missed rounds")),
            ("bye", gettext_lazy("bye scored 0")),
            ("none", gettext_lazy("no record")),
        ],
        default="forfeit",
        help_text="what a late entry gets for rounds already paired",
    )
    paper = models.CharField(max_length=10, choices=PaperSize.choices, default=PaperSize.LETTER)
    # The language of its pages for a visitor who chose none and whose browser asks for none
    # Gibson speaks; the venue screen and the broadcast overlays always take it (the room's
    # language, not the laptop's). tournament.web.language decides each request's language.
    language = models.CharField(
        max_length=10,
        choices=settings.LANGUAGES,
        default="en",
        help_text="the language of its pages unless a visitor chooses another",
    )
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
    # Game records (GCG) attached to this event's games stay off public pages until the
    # director publishes each round's records (a director who wants no hints mid-event).
    records_private = models.BooleanField(
        default=False, help_text="keep game records private until their round is published"
    )
    # The round clock's length when a director starts it without giving one.
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
    # Check-in on the day (tournament.services.checkin): set when the player checks
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
    # When the director published this round's game records (tournaments that keep them
    # private until then: Tournament.records_private).
    records_published = models.DateTimeField(null=True, blank=True, editable=False)

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
        database cannot say so): saving only the scores skips that check and the seats, which
        depend on the round and the players alone (a result costs one UPDATE, not nine).
        """
        fields = kwargs.get("update_fields")
        players = {"round", "player1", "player2", "round_id", "player1_id", "player2_id"}
        seated = fields is None or bool(players & set(fields))
        if seated:
            problem = self.division_mismatch()
            if problem:
                raise ValidationError(problem)
        adding = self._state.adding and self.pk is None  # a row given its pk may exist
        super().save(*args, **kwargs)
        if not seated:
            return  # only the scores (or the like) changed: the seats are as they were
        wanted = {side: e for side, e in ((1, self.player1_id), (2, self.player2_id)) if e}
        if adding:  # a new game has no seats yet: one INSERT for both
            Seat.objects.bulk_create(
                [
                    Seat(game=self, side=side, entry_id=entry_id, round_id=self.round_id)
                    for side, entry_id in wanted.items()
                ]
            )
            return
        # only the seats that differ are written (a forfeit drops side 2, a correction nothing)
        held = {
            side: (pk, entry_id, round_id)
            for pk, side, entry_id, round_id in Seat.objects.filter(game=self).values_list(
                "pk", "side", "entry_id", "round_id"
            )
        }
        stale = [pk for side, (pk, _e, _r) in held.items() if side not in wanted]
        if stale:
            Seat.objects.filter(pk__in=stale).delete()
        for side, entry_id in wanted.items():
            if side not in held:
                Seat.objects.create(game=self, side=side, entry_id=entry_id, round_id=self.round_id)
            elif held[side][1:] != (entry_id, self.round_id):
                Seat.objects.filter(pk=held[side][0]).update(
                    entry_id=entry_id, round_id=self.round_id
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
        DIRECTOR = "director", gettext_lazy("co-director")
        SCOREKEEPER = "scorekeeper", gettext_lazy("scorekeeper (results only)")

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
