"""Gibson settings.

Every setting comes from an environment variable with an embedded default, so a fresh clone runs
with no configuration at all (SQLite file, Celery tasks inline) and a production install changes
only the environment (PostgreSQL via DATABASE_URL, Redis workers via REDIS_URL).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

import dj_database_url
from csp.constants import NONCE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a yes/no variable; anything unrecognised is an error rather than a silent default."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")


DEBUG = env_bool("GIBSON_DEBUG", False)
DATA_DIR = Path(os.environ.get("GIBSON_DATA_DIR", BASE_DIR / "var"))
# The manual (docs/ built by `manage.py build_manual`; serve_demo builds it at start), served
# at /docs/ by tournament.web.manual.
MANUAL_DIR = DATA_DIR / "manual"
# /healthz: below LOW_DISK_MB free in DATA_DIR the site says it is degraded, below FULL_DISK_MB
# it answers 503 (results could not be saved).
LOW_DISK_MB = int(os.environ.get("GIBSON_LOW_DISK_MB", "500"))
FULL_DISK_MB = int(os.environ.get("GIBSON_FULL_DISK_MB", "50"))
# Development (and a director's laptop) means the embedded SQLite database. There a missing
# secret key is generated once and kept in DATA_DIR, never in the repository; a deployment on
# a real database (DATABASE_URL) must bring its own GIBSON_SECRET_KEY.
DEVELOPMENT = env_bool("GIBSON_DEVELOPMENT", not os.environ.get("DATABASE_URL"))
# Set for the test process only, by the test runner's first plugin (tests/testenv.py): a fixed
# secret key, tasks run inline, a page cache folder of its own. Servers and workers the tests
# start are not the test process and read their settings as a real site would.
TESTING = env_bool("GIBSON_TESTING", False)
# Requests that cost a worker seconds (PDFs, exports, pairing proposals): how many one client
# address may ask for (tournament/throttle.py); past it a 429 names the limit.
# The test process sweeps hundreds of pages in one test; tests of the limit set their own.
HEAVY_RATE = os.environ.get("GIBSON_HEAVY_RATE", "100000/hour" if TESTING else "60/minute")
HEAVY_RATE = HEAVY_RATE.strip()
# Messages one client address may send to directors through the events calendar's contact
# form (tournament/web/calendar.py): enough for a question and its follow-ups, not a spammer's.
CONTACT_RATE = "5/hour"
if not re.fullmatch(r"[1-9][0-9]*/(second|minute|hour)", HEAVY_RATE):
    raise ImproperlyConfigured(
        f"GIBSON_HEAVY_RATE={HEAVY_RATE!r}: expected N/second, N/minute or N/hour, e.g. 60/minute"
    )


# Uploads and imports (tournament/interchange/imports.py), checked before anything is parsed:
# the bytes of one upload (all its files; a request beyond them is refused before it is read),
# and an import's divisions, players and player-rounds (each player's rounds added up). The
# largest real events are far inside: the NSC has some 500 players in a dozen divisions and
# 31 rounds (15,500 player-rounds). An import is written in one transaction, about 0.7 ms a
# player-round on a busy 2-core machine, so 40,000 keeps it inside a server's 30 seconds.
# Rounds are capped at 200, the console's own cap.
def _env_int(name: str, default: int, minimum: int = 1) -> int:
    """A whole number from the environment, ``minimum`` or more (0 where 0 means "off")."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r}: expected a whole number from {minimum} up")
    return int(raw)


MAX_UPLOAD_MB = _env_int("GIBSON_MAX_UPLOAD_MB", 5)
MAX_IMPORT_DIVISIONS = _env_int("GIBSON_MAX_IMPORT_DIVISIONS", 50)
MAX_IMPORT_PLAYERS = _env_int("GIBSON_MAX_IMPORT_PLAYERS", 2000)
MAX_IMPORT_PLAYER_ROUNDS = _env_int("GIBSON_MAX_IMPORT_PLAYER_ROUNDS", 40_000)
# Where an upload's import job runs (tournament.interchange.jobs): "auto" on a Celery worker
# when one answers, else in a background thread of the web process; "thread" always there.
# The test suite runs jobs inline, inside the upload's request, so a test sees the result
# at once (tests/console/test_import_jobs.py runs the thread for real).
IMPORT_JOB_RUNNER = "inline" if TESTING else "auto"
# Public pages serve prize chances computed this many seconds ago rather than simulate again
# at every result (tournament/chances.py); the API and the command are always current.
# The tests read pages right after a change, so they see the current version.
# 0: always current (docs/reference.md), as the tests' sites that compare two sites' pages need.
GIBSON_CHANCES_PAGE_SECONDS = _env_int(
    "GIBSON_CHANCES_PAGE_SECONDS", 0 if TESTING else 30, minimum=0
)
# ... and simulate at most this many games for a page (at least 1,000 playings of the event);
# the API and the command simulate up to pairings.chances.GAMES_BUDGET (20,000,000).
GIBSON_CHANCES_PAGE_GAMES = _env_int("GIBSON_CHANCES_PAGE_GAMES", 2_000_000)


def _secret_key() -> str:
    key = os.environ.get("GIBSON_SECRET_KEY", "")
    if key:
        return key
    if TESTING:
        return "gibson-test-key-" + "x" * 40
    if not DEVELOPMENT:
        raise ImproperlyConfigured(
            "GIBSON_SECRET_KEY is not set. Set it to a long random string (for example the output "
            "of: python3 -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    path = DATA_DIR / "secret_key"
    if not path.exists():
        import secrets

        DATA_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("GIBSON_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver").split(
        ","
    )
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("GIBSON_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "tournament.admin_site.GibsonAdminConfig",  # django.contrib.admin, its site gated
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    # the API (tournament.api): tokens for machine writes, filters, the OpenAPI schema and
    # its Swagger UI served from this site (sidecar: no CDN, fits the CSP below)
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    # Sign-in throttling (AXES_* below) and the Content-Security-Policy header (csp).
    "axes",
    "csp",
    "tournament.apps.TournamentConfig",
    "ratings.apps.RatingsConfig",
    "pairings.apps.PairingsConfig",
    "tournament.clubs.apps.ClubsConfig",
]

MIDDLEWARE = [
    # behind `serve --front` (GIBSON_FRONT_CACHE): tells nginx how long it may keep an answer
    # made for everyone; first, so it sees every cookie the others set (unused otherwise)
    "tournament.web.front.FrontCacheMark",
    "django.middleware.security.SecurityMiddleware",
    # a client already over a budget (anonymous API reads, a self-entry link, sign-in failures
    # from an address) is refused here from one cache read: no session, no query
    "tournament.web.gate.AbuseGate",
    # a body beyond GIBSON_MAX_UPLOAD_MB is refused (413) before anything reads it
    "tournament.web.sizes.RequestSizeMiddleware",
    # The Content-Security-Policy header on every page (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
    # Pages and static files compressed for clients that ask (a 500-player standings page is
    # ~10x smaller; the 51 KB htmx script ~3x): above whitenoise, so the scripts it serves from
    # the apps' folders are gzipped too. Public pages the cache already holds gzipped, and any
    # file whitenoise has a compressed copy of, pass through untouched (Content-Encoding set).
    "django.middleware.gzip.GZipMiddleware",
    # Static files straight from the app server (gunicorn under `manage.py serve`): no separate
    # web server to configure at a venue; early, so a stylesheet never opens a session.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # the request's language: the visitor's choice (cookie), the browser's, the tournament's
    # (tournament/web/language.py); where Django's LocaleMiddleware would go
    "tournament.web.language.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # CORS * on anonymous reads (API, tourney.js) and their preflights, before any view
    "tournament.api.cors.AnonymousReadCors",
    # a write that met a busy SQLite database answers "try again" (503), not a traceback
    "tournament.web.errors.BusyDatabaseMiddleware",
    # a refusal (ServiceError) no view answered: a page, an htmx alert or JSON, with the
    # status of its code (tournament/web/refusals.py), never a 500
    "tournament.web.refusals.RefusalMiddleware",
    # last, as django-axes asks: turns a locked-out sign-in into the lockout page (429)
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "tournament.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "tournament.wsgi.application"
ASGI_APPLICATION = "tournament.asgi.application"

# A server keeps its database connection for a minute rather than opening one per request;
# the health check before each request's first query replaces a connection the database
# dropped (a restart, a failover), so the request after a restart works by itself.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{DATA_DIR / 'gibson.sqlite3'}",
        conn_max_age=int(os.environ.get("GIBSON_DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# How long a write waits for another's lock before "the database is busy, try again" (503):
# SQLite's busy timeout, PostgreSQL's lock_timeout (both set on every new connection by
# tournament.dblocks, from this setting). Without it a PostgreSQL write behind a long lock
# waited until gunicorn killed the worker, and the user got a bare 500 half a minute later.
DATABASE_LOCK_TIMEOUT = float(
    os.environ.get("GIBSON_DB_LOCK_TIMEOUT") or os.environ.get("GIBSON_SQLITE_BUSY_TIMEOUT") or 5
)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # A file, not memory, so a real Celery worker process can see the test database; one per
    # test process, so two test runs on one machine never share (and lock) it.
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / f"test_gibson_{os.getpid()}.sqlite3")}
    # A director's laptop at a venue: several people entering scores at once must not hit
    # "database is locked"; WAL lets readers and one writer work together, and IMMEDIATE takes
    # the write lock when a transaction starts (no deadlock halfway through). A writer waits
    # up to DATABASE_LOCK_TIMEOUT seconds for another's transaction (imports write in one
    # short one), then gets "the database is busy, try again" (ServiceError database_busy)
    # rather than a page that hangs for ever.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": DATABASE_LOCK_TIMEOUT,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL;",
        }
    )
elif DATABASES["default"]["ENGINE"].startswith("django.db.backends.postgresql"):
    # A database host that went away must answer in seconds (/healthz, a page), not after the
    # system's minutes-long TCP timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Sign-in throttling (django-axes), for the site's sign-in and the admin's alike: 10 wrong
# passwords within 15 minutes lock that user name *from that address* for 15 minutes. Keyed
# on the pair, so a venue whose devices share one address never locks its director out with
# someone else's typos, and a guesser elsewhere never locks out the director at the venue.
AUTHENTICATION_BACKENDS = [
    # first: refuses a locked-out pair before the password is checked (axes' backend)
    "tournament.web.accounts.ThrottledBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 10
# ... and from one address, whatever names it tries: SIGN_IN_FAILURES_PER_ADDRESS wrong
# sign-ins in a window of SIGN_IN_WINDOW_SECONDS lock that address out until the window ends
# (a venue's players share an address, so the number is generous).
SIGN_IN_FAILURES_PER_ADDRESS = int(os.environ.get("GIBSON_SIGN_IN_FAILURES_PER_ADDRESS", "30"))
SIGN_IN_WINDOW_SECONDS = _env_int("GIBSON_SIGN_IN_WINDOW_SECONDS", 300, minimum=60)
# ... and at most SIGN_IN_FAILURES_PER_MINUTE of them in one minute: each wrong password costs
# a password hash (~0.4 s of a core), so a flood of made-up names checks at most this many a
# minute; later tries are refused before the session or the form is read (tournament.web.gate).
# As many as axes allows one name (AXES_FAILURE_LIMIT): nine typos, then the right password.
SIGN_IN_FAILURES_PER_MINUTE = int(os.environ.get("GIBSON_SIGN_IN_FAILURES_PER_MINUTE", "10"))
# ... and at most SIGN_IN_FAILURES_PER_BURST in any SIGN_IN_BURST_SECONDS: the minute's ten
# hashes at once are four core-seconds, which a flood spends in its first seconds (public
# standings fell to a tenth of their rate meanwhile, bench_web.py --abuse); spread over the
# minute they cost the crowd little. A person retyping a password is slower than this.
SIGN_IN_FAILURES_PER_BURST = int(os.environ.get("GIBSON_SIGN_IN_FAILURES_PER_BURST", "2"))
SIGN_IN_BURST_SECONDS = 10
# ... and the locks are for the guessing, not the owner: a name refused by one of them may
# still try its password SIGN_IN_RETRY_SECONDS after its first refused try (then once per as
# many seconds; at most SIGN_IN_FAILURES_PER_BURST such tries per burst for the address), and
# a browser that signed in to the account before is not held by them (web/accounts.py).
SIGN_IN_RETRY_SECONDS = int(os.environ.get("GIBSON_SIGN_IN_RETRY_SECONDS", "30"))
# Sign-up (/accounts/signup/): SIGN_UPS_PER_ADDRESS new accounts or confirmation mails per
# address in a window of SIGN_IN_WINDOW_SECONDS; a confirmation link works for
# SIGN_UP_CONFIRM_DAYS. CLUB_APPROVAL=1: only a superuser founds a club (approval by hand).
SIGN_UPS_PER_ADDRESS = int(os.environ.get("GIBSON_SIGN_UPS_PER_ADDRESS", "5"))
SIGN_UP_CONFIRM_DAYS = int(os.environ.get("GIBSON_SIGN_UP_CONFIRM_DAYS", "3"))
CLUB_APPROVAL = env_bool("GIBSON_CLUB_APPROVAL", False)
# Venue mode: the laptop fetches the hosted site's address a director types. Off: only public
# internet addresses are asked (not this machine, its network, link-local or cloud metadata
# addresses), so the page cannot be used to reach what only the server reaches. On for a
# hosted site on the venue's own network, and for the tests' two sites on loopback.
VENUE_ALLOW_PRIVATE_ADDRESSES = env_bool("GIBSON_VENUE_ALLOW_PRIVATE", False)
# Venue mode, the laptop: seconds a quick call to the hosted site waits for its answer (a
# batch or a download waits six times as long), and the name a venue link shows for this
# laptop (the machine's name by default).
VENUE_TIMEOUT = float(os.environ.get("GIBSON_VENUE_TIMEOUT", "8"))
VENUE_LAPTOP_NAME = os.environ.get("GIBSON_VENUE_LAPTOP_NAME", "").strip()
# ... and the seconds between two pushes of serve_demo, serve and venue_sync (at least 0.5).
VENUE_PUSH_SECONDS = max(0.5, float(os.environ.get("GIBSON_VENUE_PUSH_SECONDS", "2")))
AXES_COOLOFF_TIME = dt.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# A fixed cool-off: the lockout page's "try again at" stays true while someone keeps trying.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "tournament.web.accounts.lockout"
AXES_CLIENT_IP_CALLABLE = "tournament.throttle.client_address"
AXES_VERBOSE = False

# The test process hashes with PBKDF2 at one iteration (tests/hashers.py): Django's 1,000,000
# cost half a second for each of the ~400 accounts the suite makes. The hashes keep the
# algorithm's name and carry their iteration count, so the servers the tests start (which use
# the real hasher below) still verify them; tests/security/test_password_hashing.py checks
# that a real site hashes at full strength.
if TESTING:
    PASSWORD_HASHERS = [
        "tests.hashers.QuickPBKDF2PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# Directors sign in on the site's own pages; the admin is for repairs by a superuser.
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "console_site:tournaments"
LOGOUT_REDIRECT_URL = "public:home"
# Password-reset and sign-up mail: printed to the server's console unless a real backend is
# configured (the SMTP backend reads the server and its login from these variables).
EMAIL_BACKEND = os.environ.get(
    "GIBSON_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend"
)
DEFAULT_FROM_EMAIL = os.environ.get("GIBSON_FROM_EMAIL", "gibson@localhost")
EMAIL_HOST = os.environ.get("GIBSON_EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("GIBSON_EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("GIBSON_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("GIBSON_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = env_bool("GIBSON_EMAIL_TLS", False)
EMAIL_USE_SSL = env_bool("GIBSON_EMAIL_SSL", False)
# Seconds a mail server may take to answer: players' notices go out inline after a director's
# write (tournament.services.notices), so a server that hangs must cost seconds, not minutes.
EMAIL_TIMEOUT = int(os.environ.get("GIBSON_EMAIL_TIMEOUT", "10"))

# The languages Gibson is translated into (docs/languages.md says how a federation adds one).
# English is the source language: every message is written in it and falls back to it.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("fr", "Français"),
    ("es", "Español"),
    ("pl", "Polski"),
]
# The project's catalogues: locale/<language>/LC_MESSAGES/django.po (compiled .mo files are
# built by the install, never committed)
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language switcher's choice (Django's set_language view) is remembered for a year, on
# this site only; it holds no secret, and nginx's front tier reads it for its cache key.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = os.environ.get("GIBSON_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
# `manage.py serve` fills STATIC_ROOT (collectstatic) before starting; the finders also serve the
# apps' own files, so a server started some other way (runserver, tests) still has its scripts.
WHITENOISE_USE_FINDERS = True
try:  # whitenoise warns about a missing folder on every start; an empty one is harmless
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
except OSError:
    pass

# Public base URL printed under scorecard QR codes (the site a player's phone opens).
SITE_URL = os.environ.get("GIBSON_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# Where `serve`/`serve_demo` listen (they set it; gunicorn's workers inherit it): the desk warns
# when the site is served to the room while SITE_URL names this computer (tournament.siteurl).
LISTEN_ADDR = os.environ.get("GIBSON_LISTEN_ADDR", "")

# The API at /api/v1/ (tournament.api): token first, so an anonymous write is answered 401
# with a WWW-Authenticate header; sessions let a signed-in director try the browsable docs.
# Every error has one JSON shape (tournament.api.errors). Throttle rates are generous: they
# stop a runaway script, not a scoreboard polling every few seconds.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "tournament.api.pagination.Pagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_THROTTLE_CLASSES": [
        "tournament.api.throttling.AnonRateThrottle",  # by the real address
        "tournament.api.throttling.UserRateThrottle",  # signed-in callers only
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("GIBSON_API_ANON_RATE", "600/minute"),
        "user": os.environ.get("GIBSON_API_USER_RATE", "3000/minute"),
    },
    "EXCEPTION_HANDLER": "tournament.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Gibson API",
    "DESCRIPTION": "Tournaments, divisions, entries, pairings, results, standings and ratings. "
    "Reads are public; recording and correcting results needs an API token "
    "(Authorization: Token ...) of a director or scorekeeper of the tournament; pairing and "
    "registration, one of a director.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"validatorUrl": None},  # no call to an outside validator
    "COMPONENT_SPLIT_REQUEST": True,
    # first paragraphs of docstrings only, minimums of path numbers (tournament/api/schema.py)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tournament.api.schema.public_schema",
    ],
}

# Celery: with REDIS_URL tasks go to workers through Redis; without it they run inline in the
# calling process, so the embedded default needs no broker at all.
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
# The test suite runs tasks inline; its one real-worker test points Celery at Redis itself.
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL or TESTING
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_TRACK_STARTED = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis down must cost a web request about a second, not Celery's ~20 s of retries: connect
# within a second and retry once, for the queue and for the result store. A worker's own
# reconnect loop is unaffected, and a job's PDF is a file on disk, so a lost update is harmless.
_FAST_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 1}
CELERY_TASK_PUBLISH_RETRY_POLICY = _FAST_RETRY
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1
CELERY_REDIS_SOCKET_TIMEOUT = 5
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"retry_policy": _FAST_RETRY}
# A worker started with its beat (`celery -A tournament worker -B`) retries failed mail every
# five minutes (tournament.services.notices.retry_failed); without one, `manage.py notices
# --retry` does it, and every new mail that finds the server answering takes them along.
CELERY_BEAT_SCHEDULE = {
    "retry-failed-mail": {"task": "tournament.retry_notices", "schedule": 300.0},
}


# Derived pages (standings, player pages, tourney.js) are cached where every worker process
# sees them, under versions every write bumps (tournament.cache): Redis when there is
# one; otherwise files under DATA_DIR/cache, which work across gunicorn's processes with no
# server and, unlike the database cache, add no writes to the SQLite file that result entry
# is writing to. Never the per-process memory cache: each worker would compute each change
# again. A cache that fails is skipped, never an error (caching.cache_get/cache_set).
def _next_redis_db(url: str) -> str:
    """The same Redis server, the next database number: clearing the page cache (tests, a
    restore) then never touches the Celery queues in REDIS_URL's own database."""
    from tournament.redisurl import redis_db_offset

    return redis_db_offset(url, 1)


CACHE_URL = os.environ.get("GIBSON_CACHE_URL", "") or (
    _next_redis_db(REDIS_URL) if REDIS_URL else ""
)
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "gibson-pages",
            "TIMEOUT": 3600,
            # Redis down must cost a page a moment, not a TCP timeout.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    if TESTING:  # one folder per test process, removed when it ends
        import atexit
        import shutil
        import tempfile

        _CACHE_DIR = Path(tempfile.mkdtemp(prefix="gibson-test-cache-"))
        atexit.register(shutil.rmtree, _CACHE_DIR, True)
    else:
        _CACHE_DIR = DATA_DIR / "cache"
    CACHES = {
        "default": {
            "BACKEND": "tournament.filecache.FileCache",  # O(1) writes (tournament/filecache.py)
            "LOCATION": str(_CACHE_DIR),
            "TIMEOUT": 3600,
            # a page per player and version: room for a few divisions' worth before culling
            "OPTIONS": {"MAX_ENTRIES": 20000, "CULL_FREQUENCY": 4},
        }
    }

# HTTPS. A venue laptop serves plain HTTP on its own network; a public site sets
# GIBSON_HTTPS=1: HTTP is redirected to HTTPS, browsers are told to use HTTPS only for a year
# (subdomains too), and the session and CSRF cookies are never sent over plain HTTP.
# GIBSON_BEHIND_PROXY=1 when a proxy (nginx, a load balancer) ends TLS and forwards plain
# HTTP: the request counts as HTTPS when the proxy says so in X-Forwarded-Proto (the proxy
# must set that header itself, overwriting what a client sent), and the sign-in throttle
# takes the client's address from X-Forwarded-For.
HTTPS = env_bool("GIBSON_HTTPS", False)
BEHIND_PROXY = env_bool("GIBSON_BEHIND_PROXY", False)
# Set by `serve --front` for gunicorn: nginx in front keeps public answers to the end of the
# second they were made in (tournament/web/front.py).
FRONT_CACHE = env_bool("GIBSON_FRONT_CACHE", False)
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# HSTS preloading is a commitment the domain's owner makes at hstspreload.org, not a setting
# a deployment should switch on for them (W021 asks for it).
SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Content-Security-Policy (django-csp 4): scripts only from this site, plus the few inline
# scripts the console and desk pages carry, each marked with the request's nonce
# (``nonce="{{ request.csp_nonce }}"``); an injected <script> has no nonce and does not run.
# Styles allow 'unsafe-inline': the templates carry inline <style> blocks and style=""
# attributes (a style cannot run code). Images from the site and data: URLs (the favicon).
# No page may be framed (clickjacking).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'", NONCE],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "frame-ancestors": ["'none'"],
    },
}

# The live stream (``manage.py serve_stream``, tournament.stream) public pages and overlays
# listen to: "" none (pages poll, as before), "/" this site's own address (nginx in front sends
# /t/SLUG/live/ to the stream), ":PORT" the page's host on another port (``serve --stream``
# without a front), or a full origin such as https://live.example.org. Another origin is
# added to the pages' connect-src (the stream answers with Access-Control-Allow-Origin: *).
GIBSON_STREAM_URL = os.environ.get("GIBSON_STREAM_URL", "").strip().rstrip("/") or (
    "/" if os.environ.get("GIBSON_STREAM_URL", "").strip() == "/" else ""
)
if GIBSON_STREAM_URL and GIBSON_STREAM_URL != "/":
    _stream_source = (
        f"*{GIBSON_STREAM_URL}" if GIBSON_STREAM_URL.startswith(":") else GIBSON_STREAM_URL
    )
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["connect-src"] = ["'self'", _stream_source]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # links that carry a token (self-entry, online entries, invites, resets...) are secrets:
    # no log line carries one (tournament/logfilters.py), not even the development server's
    # request lines ("GET /e/TOKEN/ HTTP/1.1" 200), which Django logs on a handler of its own
    "filters": {"hide_links": {"()": "tournament.logfilters.HideSelfEntryLinks"}},
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["hide_links"]},
        "django.server": {
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "filters": ["hide_links"],
        },
    },
    "loggers": {
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("GIBSON_LOG_LEVEL", "WARNING")},
}
