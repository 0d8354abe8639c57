"""Settings for Tabletop, all in one file, read from the environment.

The defaults suit a laptop at the table on a home network: SQLite (WAL) and the in-memory
channel layer, debug off, a secret key generated on first run and kept outside the
repository, and hosts limited to this machine's own names and addresses.

With ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` set, several ASGI workers serve one
table. See README.md and docs/deploy.md for every variable.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import dj_database_url
from django.utils.csp import CSP

from tabletop.network import local_addresses
from tabletop.serving import switches

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool = False) -> bool:
    value = env(name).lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be true or false, not {value!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    value = env(name)
    if not value:
        return default
    if not value.isdecimal() or int(value) < minimum:
        raise ValueError(f"{name} must be a whole number of at least {minimum}, not {value!r}")
    return int(value)


def env_list(name: str) -> list[str]:
    return [item.strip() for item in env(name).split(",") if item.strip()]


# The serving room's pieces (tabletop/serving/__init__.py says what each replaces and saves):
# all on unless FAST_PATH=off; FAST_PATH_OFF=gc,compiled_queries turns the listed ones off.
# Off, the app runs on the stock piece of Django, asgiref or Channels.
FAST_PATH: dict[str, bool] = switches(on=env_bool("FAST_PATH", default=True), off=env_list("FAST_PATH_OFF"))

# Where the embedded database and the generated secret key live: outside the repository, so a
# clone can be deleted or shared without losing the campaign or leaking the key.
DATA_DIR = Path(env("TABLETOP_DATA_DIR") or Path.home() / ".local" / "share" / "tabletop")


def _secret_key() -> str:
    if key := env("SECRET_KEY"):
        return key
    path = DATA_DIR / "secret-key"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        # O_EXCL: two workers starting at once must not write two different keys.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()


def _owner_only(database: str) -> None:
    """Make the embedded database readable by its owner only, like the secret key: SQLite
    creates the file with the process's umask (readable by all, commonly) and its -wal and
    -shm files with the database's own mode, so the file is created 0600 before the first
    connection. One an earlier version left open to others is closed to them."""
    if database == ":memory:" or database.startswith("file:"):
        return
    try:
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT, 0o600))
        for path in (database, f"{database}-wal", f"{database}-shm"):
            if os.path.exists(path) and os.stat(path).st_mode & 0o077:
                os.chmod(path, 0o600)
    except OSError:
        pass  # not ours to change (a read-only mount...): SQLite says what it can't open


DEBUG = env_bool("DEBUG")
PUBLIC_URL = env("PUBLIC_URL").rstrip("/")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or [
    "localhost",
    "127.0.0.1",
    "[::1]",
    "testserver",
    *local_addresses(),
]
if PUBLIC_URL:
    from urllib.parse import urlsplit

    ALLOWED_HOSTS.append(urlsplit(PUBLIC_URL).hostname or "")
    CSRF_TRUSTED_ORIGINS = [PUBLIC_URL]

INSTALLED_APPS = [
    "daphne",  # runserver with websockets, for development
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    # The database backend of Django's tasks framework: the Discord posts' queue (docs/discord.md).
    "django_tasks_db",
    "tabletop",
    "rolls",
]

MIDDLEWARE = [
    # Outermost: cuts the request's reference cycles once its response is closed (FAST_PATH gc).
    "tabletop.serving.cycles.BreakRequestCyclesMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session (it reads the switch's choice from the cookie), before Common: the
    # browser's language, or the one chosen with the switch, for every page (docs/translations.md).
    "django.middleware.locale.LocaleMiddleware",
    # Then, under a campaign or on its TV, the table's own language (tabletop/language.py).
    "tabletop.language.CampaignLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, with a request.user that makes no reference cycle (FAST_PATH gc).
    "tabletop.serving.cycles.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "tabletop.serving.admission.WriteCapMiddleware",
    "tabletop.ratelimit.RateLimitMiddleware",
]

ROOT_URLCONF = "tabletop.urls"
ASGI_APPLICATION = "tabletop.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        # Django's, with templates that cut their context's reference cycles (FAST_PATH gc).
        "BACKEND": "tabletop.serving.cycles.DjangoTemplates",
        # The alias Django's own backend has, so ``engines["django"]`` still finds it.
        "NAME": "django",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # The project's templates, each table package's own (rolls/tables/<slug>/templates),
            # then the apps'; compiled once per process.
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    [
                        "django.template.loaders.filesystem.Loader",
                        "rolls.table_templates.Loader",
                        "django.template.loaders.app_directories.Loader",
                    ],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                # LANGUAGE_CODE for <html lang>: the language active when the page is drawn.
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
            "builtins": ["django_htmx.templatetags.django_htmx", "rolls.templatetags.table"],
        },
    }
]

# Django's form renderer, whose bound fields note their form for the end of the request
# (FAST_PATH gc: tabletop/serving/cycles.py).
FORM_RENDERER = "tabletop.serving.cycles.FormRenderer"

# -- database -----------------------------------------------------------------------------------
if database_url := env("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(database_url, conn_max_age=0)}
    DATABASES["default"].setdefault("OPTIONS", {})
    # Each request runs on a thread of its own, so Django opens a connection per request (a
    # new PostgreSQL backend, some 7 ms here) and a burst opens one per request in flight,
    # past max_connections. A pool per worker reuses connections and caps them: a burst
    # waits for a free one instead. Needs psycopg's "pool" extra (psycopg-pool).
    from importlib.util import find_spec

    if DATABASES["default"]["ENGINE"].endswith("postgresql") and find_spec("psycopg_pool"):
        # A request waits 3 s at most for a connection, then gets the 503 "try again" page:
        # with the database down, a longer wait held up every request queued behind it on
        # the worker (an anonymous home page among them), for no better answer.
        # ``check``: each connection is tried before it is handed out, so one broken by a
        # blip of the server (a restart, a network hiccup) is replaced, not given to a request
        # that would answer 503 with it (psycopg_pool's documented check); and once one is
        # found broken, the pool's other idle ones are checked at once, not one by one with
        # a growing wait between them (tabletop/serving/pool_check.py).
        # ``reconnect_timeout``: while the server is down the pool retries a lost connection
        # with a wait that doubles each time (1, 2, 4, 8, 16 s...), so after a 20-second outage
        # its next try could come half a minute after the server is back, every request a 503
        # meanwhile. Ten seconds caps a round of retries; the next request that finds the pool
        # empty starts a new round at once.
        from tabletop.serving.pool_check import checking_the_rest, default_pool

        DATABASES["default"]["OPTIONS"].setdefault(
            "pool",
            {
                "min_size": 2,
                "max_size": 10,
                "timeout": 3,
                "reconnect_timeout": 10,
                "check": checking_the_rest(default_pool),
            },
        )
    # And a connection a request thread keeps between requests (REQUEST_THREADS) is tried
    # before a request reuses it, for the same reason.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # A server that does not answer (a network gone) is given up on as quickly.
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", 3)
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        # Every query here is a short index walk (a history page, a roll): starting parallel
        # workers for one cost 8 ms of a 12 ms deep history page at 100,000 rolls and never
        # saved any (bench/history.py measures the history at scale).
        DATABASES["default"]["OPTIONS"].setdefault("options", "-c max_parallel_workers_per_gather=0")
else:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    (BASE_DIR / ".data").mkdir(exist_ok=True)
    sqlite_name = str(env("SQLITE_PATH") or DATA_DIR / "tabletop.sqlite3")
    _owner_only(sqlite_name)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": sqlite_name,
            "OPTIONS": {
                # IMMEDIATE: a write transaction takes the write lock when it starts, so two
                # requests spending the same Luck point queue up instead of failing with
                # "database is locked" halfway through.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=20000;"
                ),
            },
            # Kept open by each request thread (tabletop/serving/request_threads.py) and by the
            # sockets' database thread (Channels' database_sync_to_async closes a connection only
            # past CONN_MAX_AGE): opening one costs a connect, the PRAGMAs and Django's SQL
            # functions, closing one a WAL checkpoint. Django's own handler runs each request on
            # a new thread, where a kept connection would only be left behind: closed after each
            # request, as Django advises.
            "CONN_MAX_AGE": None if FAST_PATH["request_threads"] else 0,
            "CONN_HEALTH_CHECKS": True,
            # A file, not memory: the browser tests' server thread must see the same database.
            "TEST": {"NAME": str(BASE_DIR / ".data" / f"test-{os.getpid()}.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# -- channels -----------------------------------------------------------------------------------
redis_url = env("REDIS_URL")
if redis_url and (test_worker := os.environ.get("PYTEST_XDIST_WORKER", "")).startswith("gw"):
    # The test suite on several cores (pytest-xdist): each worker its own Redis database
    # (gw0 -> 1, gw1 -> 2, ...), since a test's cache.clear() is a FLUSHDB and would empty the
    # other worker's cache and channel layer under its running test.
    from urllib.parse import urlsplit

    redis_url = urlsplit(redis_url)._replace(path=f"/{int(test_worker[2:]) + 1}").geturl()
# The address the cache and the channel layer use (the tests' server processes are given it).
REDIS_URL = redis_url
if redis_url:
    from redis.asyncio.retry import Retry as AsyncRetry
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # A command on a pooled connection that a Redis restart broke is tried once more on a new
    # one (else the first after Redis returns fails), and a Redis that does not answer a
    # connect (a network gone) is an error in 3 s. docs/deploy.md: "When a service goes away".
    REDIS_OPTIONS: dict[str, Any] = {"socket_connect_timeout": 3, "retry": Retry(NoBackoff(), 1)}
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": redis_url,
                        **REDIS_OPTIONS,
                        "retry": AsyncRetry(NoBackoff(), 1),
                        # Longer than the layer's blocking read (BZPOPMIN, 5 s): redis-py's
                        # default, 5 s too, timed the read out as Redis answered it.
                        "socket_timeout": 10,
                    }
                ],
                "capacity": 1000,
                "expiry": 30,
            },
        }
    }
elif FAST_PATH["channel_layer"]:
    # Channels' in-memory layer, without its walk over every socket on each message.
    CHANNEL_LAYERS = {"default": {"BACKEND": "tabletop.serving.channel_layer.IndexedInMemoryChannelLayer"}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# -- background tasks (docs/discord.md) ------------------------------------------------------------
# Django's tasks framework on the database the app already has: no other service, and on
# PostgreSQL several ``db_worker`` processes share the queue (each task is claimed by one).
# ``serve`` runs a worker beside the app; ``./manage.py db_worker`` runs one on its own.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# Discord (docs/discord.md): how long a post may take (connect, then answer), in seconds, and
# the longest a rate limit is waited out inside one run of the worker (longer: a later run).
DISCORD_TIMEOUT = float(env("DISCORD_TIMEOUT", "10"))
DISCORD_LONGEST_WAIT = float(env("DISCORD_LONGEST_WAIT", "30"))
# After a failed post (a 5xx, a timeout, no connection): the first retry's wait in seconds,
# doubled with each failure in a row, ten minutes at most.
DISCORD_RETRY_AFTER = float(env("DISCORD_RETRY_AFTER", "5"))
# Where the posts go instead of each webhook's own host (a proxy; the tests' stand-in for
# Discord). Empty: to Discord.
DISCORD_API_URL = env("DISCORD_API_URL")

# -- cache (rate limits, sessions) ------------------------------------------------------------------
if redis_url:
    # Typed here for both branches: the locmem one below has an OPTIONS dict of numbers.
    CACHES: dict[str, dict[str, Any]] = {
        "default": {
            # One client per process (tabletop/serving/redis_cache.py), or Django's own.
            "BACKEND": "tabletop.serving.redis_cache.RedisCache"
            if FAST_PATH["redis_cache"]
            else "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "OPTIONS": {**REDIS_OPTIONS, "socket_timeout": 3},
        }
    }
else:
    # One process: its memory is the cache. Room for every phone's session and rate-limit
    # counters of a busy club night (the default, 300 entries, would evict them constantly).
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    }

# POST requests one server process works on or queues for its request thread at once; more
# get 503 "busy, try again" at once (tabletop/serving/admission.py, counted in
# tabletop/serving/request_threads.py): about a fifth of a second of rolls at one process's capacity.
# Not enforced with FAST_PATH's request_threads off: Django's own handler counts nothing.
MAX_CONCURRENT_WRITES = env_int("MAX_CONCURRENT_WRITES", 64, minimum=1)
# Long-lived threads a server process runs requests on, one request at a time each
# (tabletop/serving/request_threads.py); each keeps a database connection open. One is fastest:
# requests are CPU work under one GIL, and more threads only contend for it and for SQLite's
# write lock (bench/load.py, 100 tables x 6 at 110 rolls/s: 1 thread p99 24 ms at 78% of a
# core; 2 or 4 threads p99 0.9 s at 96%; PostgreSQL + Redis, 2 workers at 50/s: p99 25 ms
# with 1, 54 ms with 4). More let quick requests pass one that waits on the database.
REQUEST_THREADS = env_int("REQUEST_THREADS", 1, minimum=1)

# The feed for other tools (rolls/bridges/, docs/feed.md): seconds between the keep-alive
# comments of an idle stream (each also checks its key and the log, in case a broadcast was
# lost), and how many streams one process holds open: per key, and in all (each holds a task,
# a channel of the layer and an idle thread; more are refused with 429 until one closes).
FEED_KEEPALIVE = env_int("FEED_KEEPALIVE", 15, minimum=1)
FEED_STREAMS_PER_TOKEN = env_int("FEED_STREAMS_PER_TOKEN", 4, minimum=1)
FEED_STREAMS = env_int("FEED_STREAMS", 100, minimum=1)

# URL name -> (requests, seconds) per signed-in user, or per address for anonymous visitors.
RATE_LIMITS: dict[str, tuple[int, int]] = {
    "tabletop:login": (10, 60),
    "tabletop:signup": (10, 60),
    "rolls:join": (20, 60),
    "rolls:roll-create": (60, 60),
    "rolls:follow-up": (60, 60),
    "tabletop:account": (10, 60),
    # The costly actions besides a roll, per member: checking the log reads entries, a GM's
    # roll and a contest's steps write to the log and reach every screen at the table.
    # A long log's first check takes a press per 2,000 entries (rolls.history.verify.STEP).
    "rolls:verify-log": (30, 60),
    "rolls:npc-roll": (120, 60),  # the GM rolls for everyone without a sheet
    "rolls:contest-create": (30, 60),
    "rolls:challenge-create": (30, 60),
    "rolls:contest-answer": (60, 60),
    "rolls:contest-roll": (60, 60),
    "rolls:contest-act": (60, 60),
    "rolls:extended-create": (30, 60),
    "rolls:extended-roll": (60, 60),
    "rolls:contest-close": (30, 60),
    "rolls:contest-cancel": (30, 60),
}

# -- auth and sessions --------------------------------------------------------------------------
LOGIN_URL = "tabletop:login"
# Django's model backend with the signed-in user read by a compiled query (every request).
# A session names the backend that signed it in: switching compiled_queries signs everyone out.
AUTHENTICATION_BACKENDS = [
    "tabletop.serving.auth_backend.ModelBackend"
    if FAST_PATH["compiled_queries"]
    else "django.contrib.auth.backends.ModelBackend"
]
LOGIN_REDIRECT_URL = "tabletop:home"
LOGOUT_REDIRECT_URL = "tabletop:home"
# A phone that joined stays at the table: a year, renewed on every visit.
SESSION_COOKIE_AGE = 365 * 24 * 3600
# Sessions are read on every request: from the cache, written through to the database (which
# keeps them across restarts and answers when the cache has lost one, or is gone:
# tabletop/sessions.py takes a cache that fails for a miss).
SESSION_ENGINE = "tabletop.sessions"
SESSION_SAVE_EVERY_REQUEST = False
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# -- security -----------------------------------------------------------------------------------
SECURE = env_bool("SECURE", default=PUBLIC_URL.startswith("https://"))
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE and env_bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = 31536000 if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY") else None
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    # The phone as an app (tabletop/phone_app.py): the worker at /sw.js and the manifest, ours only.
    "worker-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}

# -- static files -------------------------------------------------------------------------------
STATIC_URL = "static/"
# Where `serve` collects the static files. Its own place for each process that collects while
# another serves from this tree (the tests of `serve` beside the suite's other worker).
STATIC_ROOT = Path(env("STATIC_ROOT")) if env("STATIC_ROOT") else BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# -- languages (docs/translations.md) -------------------------------------------------------------
# English is the source; a page under a campaign is drawn in the campaign's language
# (``Campaign.language``, one of these), any other page in the browser's or the switch's.
LANGUAGE_CODE = "en"
# Each in its own words: the switch and the GM's choice list them for people who may not read
# English. Adding one: README.md, "Translations: adding a language".
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("es", "Español"),
    ("pt-br", "Português (Brasil)"),
    ("sv", "Svenska"),
]
# One catalogue for the project, its .mo files committed: the app runs without gettext's tools.
LOCALE_PATHS = [BASE_DIR / "tabletop" / "locale"]
# Dates in each language's own way (templates name the format: ``date:"DATE_FORMAT"``), with
# English's short day kept (tabletop/formats/en/formats.py).
FORMAT_MODULE_PATH = ["tabletop.formats"]
TIME_ZONE = env("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_refusals": {"()": "tabletop.logfilters.OneLineRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"filters": ["one_line_refusals"]}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "WARNING")},
}

# Which proxies uvicorn trusts for X-Forwarded-For/Proto (``serve``): only this machine unless
# told otherwise.
FORWARDED_ALLOW_IPS = env("FORWARDED_ALLOW_IPS", "127.0.0.1")
