"""Diamino's settings: one module, every knob an environment variable.

With no variable set, the site runs on the embedded default: DEBUG on, SQLite
in ``data/``, Celery tasks run eagerly in-process, a local-memory cache, and
mail written to the console and to ``data/mail/``. Production sets
``DJANGO_DEBUG=0``, ``DJANGO_SECRET_KEY``, ``DATABASE_URL`` and ``REDIS_URL``.
``.env.example`` lists every variable.
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from diamino_site.env import (
    env_addresses,
    env_bool,
    env_file_load,
    env_int,
    env_list,
    env_str,
    env_url,
)
from diamino_site.release import default_release

BASE_DIR = Path(__file__).resolve().parent.parent

# --- .env: the file's variables, read before any other setting -------------
# DIAMINO_ENV_FILE names another file (an empty value: none); the environment wins.
_env_file = os.environ.get("DIAMINO_ENV_FILE", str(BASE_DIR / ".env"))
if _env_file:
    env_file_load(Path(_env_file))
# --- end of .env --------------------------------------------------------------

DATA_DIR = Path(env_str("DIAMINO_DATA_DIR", str(BASE_DIR / "data")))

DEBUG = env_bool("DJANGO_DEBUG", True)
if DEBUG:
    SECRET_KEY = env_str("DJANGO_SECRET_KEY", "insecure-development-key-do-not-use-in-production")
else:
    SECRET_KEY = env_str("DJANGO_SECRET_KEY")  # required: raises when unset
# The public address every email links to. `make run HOST=… PORT=…` sets it to
# the address it serves (Makefile); set it by hand for any other server.
SITE_URL = env_url("SITE_URL", "http://127.0.0.1:8000", schemes=("http", "https"))
# What emails call the site (allauth's "Hello from …"), rather than a host:port.
SITE_NAME = env_str("DIAMINO_SITE_NAME", "Diamino")
_site_host = urlsplit(SITE_URL).hostname or "127.0.0.1"
# The site's own address answers too: `make run HOST=192.168.1.5` works as it says.
ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS",
    list(
        dict.fromkeys(
            [
                "127.0.0.1",
                "localhost",
                "[::1]",
                f"[{_site_host}]" if ":" in _site_host else _site_host,
            ]
        )
    ),
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [SITE_URL])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "allauth",
    # allauth.account, named "Email addresses" in the admin (accounts/apps.py).
    "accounts.apps.EmailAddressesConfig",
    "accounts.apps.AccountsConfig",
    "games.apps.GamesConfig",
    "ratings.apps.RatingsConfig",
    "moderation.apps.ModerationConfig",
    "learn.apps.LearnConfig",
    "leagues.apps.LeaguesConfig",
    "notifications.apps.NotificationsConfig",
    "monitoring.apps.MonitoringConfig",
    "bymail.apps.BymailConfig",
]

MIDDLEWARE = [
    # First, so that every response and every log line of the request has its id.
    "monitoring.request_id.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Pages and htmx answers compressed (a game page's 70 KB of HTML is about 8 KB
    # gzipped: seconds on a phone's slow network). Above every middleware that reads or
    # writes the body, as Django's documentation asks. Django pads each compressed
    # answer with random bytes (since 4.2) against BREACH, and the CSRF token is masked
    # per response. Static files come compressed already (WhiteNoise's .gz and .br files).
    "django.middleware.gzip.GZipMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.UserPreferencesMiddleware",
    # The page's style sheets and menu.js named in a Link header, asked for ahead of its
    # deferred scripts (diamino_site/preload.py).
    "diamino_site.preload.PreloadMiddleware",
]

# Content-Security-Policy (django-csp): scripts only from the site's own files, never
# inline, never eval (htmx is configured for it in base.html); no plugins, no framing,
# forms post only here. Style *attributes* stay allowed (the board's column count and
# the rating chart are drawn with them); style sheets and <style> elements only ours.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-elem": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# `make bench` only: /_bench/bare and the X-Queries header (diamino_site/bench.py).
DIAMINO_BENCH_VIEWS = env_bool("DIAMINO_BENCH_VIEWS", False)
if DIAMINO_BENCH_VIEWS:
    MIDDLEWARE.insert(0, "diamino_site.bench.QueryCountMiddleware")
    # The phone benchmark's before/after (benchmarks/phone.py): what compression and
    # conditional answers buy, each measured by switching it on or off. Never in production.
    if not env_bool("DIAMINO_BENCH_GZIP", True):
        MIDDLEWARE.remove("django.middleware.gzip.GZipMiddleware")
    if env_bool("DIAMINO_BENCH_CONDITIONAL_GET", False):
        MIDDLEWARE.insert(
            MIDDLEWARE.index("django.middleware.common.CommonMiddleware"),
            "django.middleware.http.ConditionalGetMiddleware",
        )

ROOT_URLCONF = "diamino_site.urls"
WSGI_APPLICATION = "diamino_site.wsgi.application"
ASGI_APPLICATION = "diamino_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "libraries": {"preload": "diamino_site.preload"},
        },
    }
]

# --- Database: SQLite in data/ unless DATABASE_URL says otherwise -----------
_database_url = env_url("DATABASE_URL", None, schemes=("postgres", "postgresql", "pgsql", "sqlite"))
if _database_url:
    # Persistent connections (a minute), each checked before a request or task
    # reuses it: after a database restart every process reconnects on its own,
    # without being restarted, instead of failing once on its broken connection.
    DATABASES = {
        "default": dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # A database that cannot be reached (a host that drops packets, a frozen
        # server) fails a new connection after this many seconds instead of the
        # system's minutes: the page is the 503 one, and /healthz's check thread ends.
        DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
            "connect_timeout", env_int("DIAMINO_DB_CONNECT_TIMEOUT", 5, minimum=2, maximum=300)
        )
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
        "DIAMINO_DB_PREPARED_STATEMENTS", True
    ):
        # Parameters sent apart from the SQL, and a statement run five times on a
        # connection prepared there: PostgreSQL then skips parsing and planning it,
        # which was half of the CPU the game page's queries cost it
        # (docs/PERFORMANCE.md). Off (0) behind a pooler in transaction mode that
        # cannot keep prepared statements (PgBouncer before 1.21).
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=5
        )
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "diamino.sqlite3",  # type: ignore[typeddict-item]  # a Path works
            # Correspondence play is write-light; WAL lets readers and the one
            # writer proceed together, and the timeout rides out short locks.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: Celery broker and cache when set; eager tasks otherwise ---------
REDIS_URL = env_url("REDIS_URL", None, schemes=("redis", "rediss", "unix"))
if REDIS_URL:
    # A Redis that is down or hangs never stops a page (infra/cache.py): an
    # operation waits at most the socket timeout, then Redis is left alone for
    # RETRY_SECONDS while the fallback serves. The rate limits fall back to a
    # per-process local-memory cache; the sessions to nothing (the database has them).
    _redis_cache = {
        "BACKEND": "infra.cache.ResilientRedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        "RETRY_SECONDS": 5,
    }
    CACHES = {
        "default": {**_redis_cache, "FALLBACK": "local"},
        "sessions": {**_redis_cache, "FALLBACK": "none"},
    }
    # Sessions read from Redis and kept in the database (Django's cached_db): one
    # query less per signed-in request; a flushed cache signs nobody out. With Redis
    # away they are read from the database; a log-out meanwhile stays one
    # (the "sessions" cache keeps nothing then, infra/cache.py).
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    SESSION_CACHE_ALIAS = "sessions"
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # a worker that dies mid-task leaves the message queued
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    # A Redis that hangs must not hang the move that queues its emails (kombu
    # waits forever by default): one try, then the sweeps (infra/celery.py).
    "socket_connect_timeout": 1,
    "socket_timeout": 1,
}
CELERY_TASK_PUBLISH_RETRY = False
# Once a publish failed, queueing is refused at once for this long (infra/celery.py).
DIAMINO_BROKER_RETRY_SECONDS = 5.0
CELERY_TIMEZONE = "UTC"
# One beat process schedules these; any number of workers run them (README).
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # Re-queue outbox rows still unsent a minute after they were due.
    "notifications-sweep": {
        "task": "notifications.sweep",
        "schedule": 60.0,
        "options": {"expires": 55},  # a backlog of sweeps is one sweep
    },
    # Time-outs at the deadline (R-END-4) and reminders before it.
    "games-clock": {"task": "notifications.clock", "schedule": 300.0, "options": {"expires": 290}},
    # A computer player's turn whose task was lost (games/computer.py).
    "games-bot-turns": {"task": "games.bot_sweep", "schedule": 60.0, "options": {"expires": 55}},
    # The leagues' seasons: registration opened and closed, started, last week, closed.
    "leagues-seasons": {"task": "leagues.advance", "schedule": 300.0, "options": {"expires": 290}},
    # Daily digests, written at each player's local digest hour.
    "notifications-digests": {
        "task": "notifications.digests",
        "schedule": crontab(minute=0),
        "options": {"expires": 3000},
    },
}

# --- Auth and accounts (django-allauth) -------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True  # one address per player: a new one replaces it once confirmed
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SITE_URL.startswith("https") else "http"
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    # Per address here; per account and address together in DIAMINO_RATE_LIMITS'
    # "login-failed" (accounts/adapter.py): a stranger's wrong passwords never lock
    # the owner out from their own address.
    "login_failed": "10/m/ip",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "confirm_email": "1/3m/key",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
}

# --- Email: SMTP when EMAIL_HOST is set; console + files otherwise ----------
EMAIL_HOST = env_str("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
else:
    EMAIL_BACKEND = "diamino_site.mail.ConsoleAndFileBackend"
EMAIL_BACKEND = env_str("DJANGO_EMAIL_BACKEND", EMAIL_BACKEND)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
EMAIL_FILE_PATH = DATA_DIR / "mail"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Diamino <diamino@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Play by mail (#24): the domain of the turn emails' Reply-To, reply+<token>@MAIL_IN_DOMAIN
# (games/reply_address.py). Empty: SITE_URL's host name, or "localhost" when it is an IP address.
MAIL_IN_DOMAIN = env_str("MAIL_IN_DOMAIN", "")

# --- Play by email: replies to the turn emails (bymail/, README) ------------
# `make mail-in` listens here for the site's mail server to hand replies to.
MAIL_IN_HOST = env_str("MAIL_IN_HOST", "127.0.0.1")
MAIL_IN_PORT = env_int("MAIL_IN_PORT", 2525, minimum=1, maximum=65535)
# A hosted mailbox to fetch replies from instead: imaps://user:password@host:993/INBOX.
MAIL_IN_IMAP_URL = env_url("MAIL_IN_IMAP_URL", None, schemes=("imap", "imaps"))
MAIL_IN_IMAP_SECONDS = env_int("MAIL_IN_IMAP_SECONDS", 60, minimum=5)
# Whether this site receives the replies at all: on, the turn emails carry the
# seat's Reply-To and how to answer, and the settings offer "play by email".
# Default: on only when MAIL_IN_DOMAIN or MAIL_IN_IMAP_URL is set (a site that
# says where its mail comes in); locally, `MAIL_IN_ENABLED=1 make run` with `make mail-in`.
MAIL_IN_ENABLED = env_bool("MAIL_IN_ENABLED", bool(MAIL_IN_DOMAIN or MAIL_IN_IMAP_URL))
# A reply larger than this, or with more MIME parts, is refused with the reason;
# the SMTP server itself refuses anything over four times the size (552).
MAIL_IN_MAX_BYTES = env_int("MAIL_IN_MAX_BYTES", 256 * 1024, minimum=1024)
MAIL_IN_MAX_PARTS = env_int("MAIL_IN_MAX_PARTS", 20, minimum=1)
# At most this many replies per seat per MAIL_IN_RATE_SECONDS; the rest are refused.
MAIL_IN_RATE_COUNT = env_int("MAIL_IN_RATE_COUNT", 10, minimum=1)
MAIL_IN_RATE_SECONDS = env_int("MAIL_IN_RATE_SECONDS", 3600, minimum=1)
# The authserv-id of our own mail server's Authentication-Results header (opendmarc…):
# set, a reply whose From did not pass DMARC there is dropped. Empty: no check.
MAIL_IN_AUTHSERV_ID = env_str("MAIL_IN_AUTHSERV_ID", "")
# Stored replies not processed after this many seconds are processed by the sweep.
MAIL_IN_SWEEP_AFTER = env_int("MAIL_IN_SWEEP_AFTER", 60, minimum=0)
# A processed reply's raw bytes are emptied this many days after (by the sweep);
# the row (Message-ID, what it did) stays.
MAIL_IN_KEEP_RAW_DAYS = env_int("MAIL_IN_KEEP_RAW_DAYS", 30, minimum=1)
CELERY_BEAT_SCHEDULE["bymail-sweep"] = {
    "task": "bymail.sweep",
    "schedule": 60.0,
    "options": {"expires": 55},
}
if MAIL_IN_IMAP_URL:
    CELERY_BEAT_SCHEDULE["bymail-imap"] = {
        "task": "bymail.imap_fetch",
        "schedule": float(MAIL_IN_IMAP_SECONDS),
        "options": {"expires": MAIL_IN_IMAP_SECONDS - 1},
    }

# --- Internationalisation: French first, English too ------------------------
LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("French")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# English times end with "AM"/"PM", not "a.m.", so no sentence ends "a.m.." (formats/en).
FORMAT_MODULE_PATH = ["diamino_site.formats"]
USE_I18N = True
TIME_ZONE = "Europe/Paris"
USE_TZ = True

# --- Static files ------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "static"
# Served at the site's root by WhiteNoise: /favicon.ico, which browsers ask for on their own.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
# WhiteNoise warns on every request when its root is missing; make it exist.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            # Our scripts and style sheets minified, then hashed names (cached for a
            # year by browsers) and compressed copies (diamino_site/storage.py).
            else "diamino_site.storage.StaticStorage"
        )
    },
}

# --- Security: strict whenever DEBUG is off ----------------------------------
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = not DEBUG and env_bool("DJANGO_SECURE_COOKIES", True)
SECURE_SSL_REDIRECT = not DEBUG and env_bool("DJANGO_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = 0 if DEBUG else env_int("DJANGO_HSTS_SECONDS", 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if env_bool("DJANGO_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # The visitor's address for the rate limits (log-in, sign-up, the site's own):
    # the proxies' X-Forwarded-For, trusting this many of them. Without it every
    # visitor would have the proxy's address, and ten wrong passwords from anyone
    # would stop everyone logging in for a minute.
    ALLAUTH_TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", 1, minimum=1)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
X_FRAME_OPTIONS = "DENY"

# How long a correspondence game may wait for a move, in days.
DIAMINO_DAYS_PER_MOVE_CHOICES = (1, 2, 3, 5, 7, 14)
# Days per calendar year a player may stop their clocks (accounts/vacations.py).
DIAMINO_VACATION_DAYS_PER_YEAR = 20
# How far ahead a vacation may be booked: its first day at most this many days after today.
DIAMINO_VACATION_BOOKING_HORIZON_DAYS = 90

# The email outbox (notifications/sending.py): retries with exponential backoff
# from RETRY_BASE up to RETRY_CAP, failed after MAX_ATTEMPTS; a sender that has
# not finished after LEASE is presumed dead and its row is taken over (keep it
# far above EMAIL_TIMEOUT); the sweep re-queues rows unsent SWEEP_AFTER past due,
# at most once per REQUEUE_AFTER while no sender has taken its message, and that
# message expires after REQUEUE_AFTER (a backlog stays one live message per row).
DIAMINO_NOTIFICATION_MAX_ATTEMPTS = 12
DIAMINO_NOTIFICATION_RETRY_BASE = timedelta(minutes=1)
DIAMINO_NOTIFICATION_RETRY_CAP = timedelta(hours=1)
DIAMINO_NOTIFICATION_LEASE = timedelta(minutes=10)
DIAMINO_NOTIFICATION_SWEEP_AFTER = timedelta(minutes=1)
DIAMINO_NOTIFICATION_REQUEUE_AFTER = timedelta(minutes=5)
# Web push (notifications/push.py), VAPID (RFC 8292): the key pair `manage.py vapid_keys`
# prints (base64url: the public key as the browser takes it, the private key's raw 32 bytes)
# and a contact for the push services (mailto: or https:). Without both keys the site offers
# no push: no button in the settings, no push rows.
DIAMINO_VAPID_PUBLIC_KEY = env_str("DIAMINO_VAPID_PUBLIC_KEY", "")
DIAMINO_VAPID_PRIVATE_KEY = env_str("DIAMINO_VAPID_PRIVATE_KEY", "")
DIAMINO_VAPID_SUBJECT = env_str("DIAMINO_VAPID_SUBJECT", "mailto:diamino@localhost")
# How long a push service may take to answer before the push is retried (seconds).
DIAMINO_PUSH_TIMEOUT = 10
# How long a push message waits at the push service for a device that is off (seconds).
DIAMINO_PUSH_TTL = 24 * 3600
# The local hour (in each player's time zone) from which the daily digest goes out.
DIAMINO_DIGEST_HOUR = env_int("DIAMINO_DIGEST_HOUR", 8, minimum=0, maximum=23)
# /healthz checks the database and the broker at once, each for at most this long:
# it answers (503, naming what is wrong) in about this time even when one hangs.
DIAMINO_HEALTH_TIMEOUT = timedelta(seconds=1)
# How often an open game page (the player to move's too) asks whether the game has
# changed: a move, a resignation, a time-out, an annulment, a day given, a chat message.
# An unchanged game answers 204 with no body after one query, so a short interval is
# cheap; 6 seconds shows the news within 10 (docs/ARCHITECTURE.md, "A page that stays
# current"). Tests use 1 second to see the page update by itself.
DIAMINO_POLL_SECONDS = env_int("DIAMINO_POLL_SECONDS", 6, minimum=1, maximum=3600)

# Rate limits (infra/ratelimit.py): name -> (count, seconds), per player when
# signed in, per client address otherwise. A limited request is a 429 that changes
# nothing. Far above honest play: the preview fires as tiles are placed (150 ms after
# the last), so 240 a minute is four a second for a whole minute.
# DIAMINO_RATE_LIMIT_SCALE multiplies every count: `make bench` sets it, since its few
# simulated players request far faster than people (the limits' cost is still measured).
_RATE_LIMIT_SCALE = env_int("DIAMINO_RATE_LIMIT_SCALE", 1, minimum=1, maximum=1_000_000)
DIAMINO_RATE_LIMITS: dict[str, tuple[int, int]] = {
    name: (count * _RATE_LIMIT_SCALE, seconds)
    for name, (count, seconds) in {
        "word-check": (120, 60),  # /verifier-un-mot/, open to anonymous visitors
        "preview": (240, 60),
        "move": (60, 60),  # play, exchange, pass, resign
        "hint": (30, 600),  # hints computed (one is shown again for free)
        "chat": (6, 60),
        "reports": (5, 86400),
        "form": (60, 60),  # every other form: tables, seats, a day given, settings, vacations…
        "hand-order": (120, 60),  # the Sort list saves each choice, an arrow key each
        "replay": (60, 60),  # a game's replay, rebuilt by the engine at each ask
        "login-failed": (5, 300),  # per account and address (accounts/adapter.py)
        "confirm-email": (1, 180),  # a confirmation sent again, per address
    }.items()
}

# Computer players (games/computer.py, games/services/hints.py, docs/COMPUTER.md). Seconds a computer
# player waits before it answers (with a worker; eagerly it answers at once):
# a reply in the same instant reads as a glitch, and the pause spreads the load.
DIAMINO_BOT_DELAY_SECONDS = env_int("DIAMINO_BOT_DELAY_SECONDS", 2, minimum=0, maximum=60)
# With eager tasks (the embedded default: no worker), the computer turns one request plays
# at most, after the move that gave the first one (games/computer.py): a table where only
# computers are left is played on by the game page's next views (its poll) and by the sweep,
# not to its end inside one request. 3 answers a person at a table of 4 with all three replies.
DIAMINO_COMPUTER_TURNS_PER_REQUEST = env_int(
    "DIAMINO_COMPUTER_TURNS_PER_REQUEST", 3, minimum=1, maximum=20
)
# Hints per player and game, in unrated games only.
DIAMINO_HINTS_PER_GAME = env_int("DIAMINO_HINTS_PER_GAME", 3, minimum=0, maximum=100)
# Names the code that drew what the game page keeps in the cache (games/page_cache.py):
# a deploy that changes it never serves the old code's board. By default the
# installed version and the git commit, read once here (diamino_site/release.py).
DIAMINO_RELEASE = env_str("DIAMINO_RELEASE", "") or default_release(BASE_DIR)
# Seconds a hint's or a computer player's search may take: past them it answers with the
# best move found so far (the computer exchanges or passes if it found none).
DIAMINO_SEARCH_SECONDS = env_int("DIAMINO_SEARCH_SECONDS", 3, minimum=1, maximum=60)
# Analyse each finished game in a worker as soon as it ends (games/services/analysis.py).
# Unset (None): only when a worker runs the tasks. Eagerly the analysis (seconds
# to a minute) would hold up the last move's page; players then ask for it with
# a button on the finished game's page.
DIAMINO_ANALYSE_FINISHED_GAMES: bool | None = (
    env_bool("DIAMINO_ANALYSE_FINISHED_GAMES", False)
    if os.environ.get("DIAMINO_ANALYSE_FINISHED_GAMES", "").strip()
    else None
)

# --- Monitoring: a dead beat noticed, errors reported (monitoring/) ----------
# /healthz answers 503 when a watched periodic task has not finished within three
# of its periods (monitoring/heartbeats.py). On where a beat is expected: by
# default when a broker (REDIS_URL) is configured; the embedded default runs
# tasks eagerly and needs no beat.
DIAMINO_HEALTH_BEAT = env_bool("DIAMINO_HEALTH_BEAT", bool(REDIS_URL))
# The outbox sweep and the clock: without them no email is retried, and nobody times out.
DIAMINO_HEALTH_BEAT_TASKS: tuple[str, ...] = ("notifications.sweep", "notifications.clock")
if MAIL_IN_IMAP_URL:  # replies fetched by beat: a fetch that keeps failing (a password changed)
    DIAMINO_HEALTH_BEAT_TASKS = (*DIAMINO_HEALTH_BEAT_TASKS, "bymail.imap_fetch")

# Errors: to Sentry when SENTRY_DSN is set (no personal data: monitoring/errors.py);
# always to the log, each line with its request id (monitoring/request_id.py);
# and, with DEBUG off, by email to ADMINS ("Name <a@example.com>, …") through
# the same EMAIL_* settings as the players' emails.
SENTRY_DSN = env_url("SENTRY_DSN", None, schemes=("http", "https"))
if SENTRY_DSN:
    from monitoring.errors import sentry_init

    sentry_init(SENTRY_DSN, environment=env_str("SENTRY_ENVIRONMENT", "") or None)
ADMINS = env_addresses("ADMINS")

# /.well-known/security.txt (RFC 9116) and SECURITY.md: where to report a vulnerability.
# Contact: a mailto: or https: URL; unset, the first of ADMINS, else DEFAULT_FROM_EMAIL.
# Expires: a date (2027-06-30) the host commits to review it by; unset, 180 days from the
# day it is served, so the file is never stale but promises no review.
DIAMINO_SECURITY_CONTACT = env_str("DIAMINO_SECURITY_CONTACT", "") or (
    f"mailto:{ADMINS[0][1] if ADMINS else parseaddr(DEFAULT_FROM_EMAIL)[1]}"
)
try:
    DIAMINO_SECURITY_EXPIRES = (
        date.fromisoformat(_expires)
        if (_expires := env_str("DIAMINO_SECURITY_EXPIRES", ""))
        else None
    )
except ValueError as exc:
    raise ImproperlyConfigured(
        f"DIAMINO_SECURITY_EXPIRES must be a date, 2027-06-30: {exc}"
    ) from exc

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "monitoring.request_id.RequestIdFilter"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    "formatters": {
        "with_request_id": {
            "format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "with_request_id",
        },
        "mail_admins": {
            "class": "django.utils.log.AdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        },
    },
    # Django's errors (a 500, a failed check) go to ADMINS as well as to the log below.
    "loggers": {"django": {"handlers": ["mail_admins"], "level": "INFO"}},
    "root": {"handlers": ["console"], "level": env_str("DJANGO_LOG_LEVEL", "INFO")},
}
# --- end of monitoring ---------------------------------------------------------
