"""The history at scale: a campaign of 100,000 rolls over 200 play sessions and 8 characters,
and how long its pages take, on SQLite and on PostgreSQL.

The campaign is filled by ``bench/history_fill.py``: its first sessions played through the
real services (``rolls/demo.py``, what ``manage.py demo_campaign`` runs), the rest copies of
those rows, identical in shape, hash chain included (its docstring says what differs). The
filled database is kept between runs (``--cache``; ``--fresh`` fills it again): the SQLite file
in ``/tmp/tabletop-bench-history/``, and on PostgreSQL the database ``bench_history`` (never
``test`` or the other scripts' ``tabletop_bench``). Migrations are applied to a kept database
on each run, so an index added since is measured.

Every page goes through Django's whole handler with the test client (middleware, view,
template), signed in as the GM or as a player, ``--repeat`` times after two warm-ups; the
figure is the median, against the target of 50 ms. The export streams: its figures are the
time to the first chunk (the target), the whole download, and the peak memory of this process
while streaming it (RSS high-water mark, reset before each export; target 100 MB).

    .venv/bin/python bench/history.py                        # SQLite, then PostgreSQL
    .venv/bin/python bench/history.py --config embedded      # one of them
    .venv/bin/python bench/history.py --fresh                # fill again
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CACHE = Path("/tmp/tabletop-bench-history")
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_DB = "bench_history"
TARGET_MS = 50.0
MEMORY_MB = 100.0


@dataclass(frozen=True)
class Page:
    label: str
    url: Callable[[Any], str]  # from the World (ids of the filled campaign)
    persona: str = "gm"  # "gm" or "player"
    stream: bool = False  # an export: time to first chunk, whole download and memory
    rounds: int = 0  # requests of an export (0: a fifth of --repeat, at least 3)
    cold: bool = False  # the figures dropped from the cache before each request: the first view after a roll


# -- the pages ----------------------------------------------------------------------------------


def _history(world: Any, query: str = "") -> str:
    from django.urls import reverse

    return reverse("rolls:history", args=[world.campaign]) + (f"?{query}" if query else "")


def _url(name: str, *args: Any, query: str = "") -> str:
    from django.urls import reverse

    return reverse(name, args=args) + (f"?{query}" if query else "")


PAGES: list[Page] = [
    Page("history, first page, GM", lambda w: _history(w)),
    Page("history, first page, player", lambda w: _history(w), "player"),
    Page("history, deep page, GM", lambda w: _history(w, f"before={w.deep}")),
    Page("history, deep page, player", lambda w: _history(w, f"before={w.deep}"), "player"),
    Page("history, rolls only", lambda w: _history(w, "kind=rolls")),
    Page("history, events only, deep", lambda w: _history(w, f"kind=events&before={w.deep}")),
    Page("history, one session", lambda w: _history(w, f"session={w.session}")),
    Page("history, one session, player", lambda w: _history(w, f"session={w.session}"), "player"),
    Page("history, one character", lambda w: _history(w, f"character={w.character}")),
    Page("history, one character, deep", lambda w: _history(w, f"character={w.character}&before={w.deep}")),
    Page("history, one player", lambda w: _history(w, f"player={w.player}"), "player"),
    Page("history, outcome failure", lambda w: _history(w, "outcome=failure")),
    Page(
        "history, outcome, player, deep", lambda w: _history(w, f"outcome=success&before={w.deep}"), "player"
    ),
    Page("history, a follow-up used", lambda w: _history(w, f"follow_up={w.follow_up}")),
    Page("history, follow-up, deep", lambda w: _history(w, f"follow_up={w.follow_up}&before={w.deep}")),
    Page("history, secret only, GM", lambda w: _history(w, "secret=yes")),
    Page("history, a date range", lambda w: _history(w, f"since={w.day}&until={w.day}")),
    Page("history, way back (?after=)", lambda w: _history(w, f"after={w.deep}")),
    Page("a roll's page, GM", lambda w: _url("rolls:roll", w.campaign, w.roll)),
    Page("a roll's page, player", lambda w: _url("rolls:roll", w.campaign, w.roll), "player"),
    Page(
        "export CSV, one session",
        lambda w: _url("rolls:export", w.campaign, query=f"format=csv&session={w.session_number}"),
        stream=True,
    ),
    Page(
        "export JSON, one session",
        lambda w: _url("rolls:export", w.campaign, query=f"format=json&session={w.session_number}"),
        stream=True,
    ),
    Page(
        "export CSV, campaign, GM",
        lambda w: _url("rolls:export", w.campaign, query="format=csv"),
        stream=True,
        rounds=1,
    ),
    Page(
        "export JSON, campaign, GM",
        lambda w: _url("rolls:export", w.campaign, query="format=json"),
        stream=True,
        rounds=1,
    ),
    Page(
        "export JSON, campaign, player",
        lambda w: _url("rolls:export", w.campaign, query="format=json"),
        "player",
        stream=True,
        rounds=1,
    ),
]

# The statistics pages and the session recap (issue 15), as the GM and as a player (whose
# figures leave out what they may not see: another query).
STATS_PAGES: list[Page] = [
    Page("stats, campaign, GM", lambda w: _url("rolls:stats", w.campaign)),
    Page("stats, campaign, player", lambda w: _url("rolls:stats", w.campaign), "player"),
    Page("stats, session, GM", lambda w: _url("rolls:stats-session", w.campaign, w.session)),
    Page("stats, session, player", lambda w: _url("rolls:stats-session", w.campaign, w.session), "player"),
    Page("stats, character, GM", lambda w: _url("rolls:stats-character", w.campaign, w.character)),
    Page(
        "stats, character, player",
        lambda w: _url("rolls:stats-character", w.campaign, w.character),
        "player",
    ),
    Page("recap, session, GM", lambda w: _url("rolls:recap", w.campaign, w.session)),
    Page("recap, session, player", lambda w: _url("rolls:recap", w.campaign, w.session), "player"),
    # The figures are kept in the cache until the log moves on (``rolls.stats.summary.summary``): the
    # same pages with it emptied first (and the sign-in read back, ``measure``) are what the
    # first view after each roll costs.
    Page("stats, campaign, GM, cold", lambda w: _url("rolls:stats", w.campaign), cold=True),
    Page("stats, campaign, player, cold", lambda w: _url("rolls:stats", w.campaign), "player", cold=True),
    Page(
        "stats, character, GM, cold",
        lambda w: _url("rolls:stats-character", w.campaign, w.character),
        cold=True,
    ),
    Page("recap, session, GM, cold", lambda w: _url("rolls:recap", w.campaign, w.session), cold=True),
]


@dataclass
class World:
    """The filled campaign's ids the pages name."""

    campaign: int
    gm: Any
    player_user: Any
    player: int  # a player's user id (the "player" filter)
    character: int
    session: int  # a session in the middle of the campaign
    session_number: int
    deep: int  # a sequence number a tenth of the way from the oldest entry
    roll: int  # a roll with follow-ups, in the middle
    follow_up: str
    day: str


# -- database -----------------------------------------------------------------------------------


def _environment(config: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
    os.environ["TABLETOP_NO_BOOTSTRAP"] = "1"
    os.environ.setdefault("SECRET_KEY", "bench-history-" + "x" * 40)
    os.environ["DEBUG"] = "0"
    os.environ["LOG_LEVEL"] = "WARNING"
    for name in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH"):
        os.environ.pop(name, None)
    CACHE.mkdir(parents=True, exist_ok=True)
    os.environ["TABLETOP_DATA_DIR"] = str(CACHE)
    if config == "production":
        os.environ["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{PG_DB}"


def _database(config: str, key: str, fresh: bool) -> None:
    if config == "embedded":
        path = CACHE / f"history-{key}.sqlite3"
        if fresh:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        os.environ["SQLITE_PATH"] = str(path)
        return
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [PG_DB]).fetchone()
        if exists and fresh:
            conn.execute(f"DROP DATABASE {PG_DB} WITH (FORCE)")
            exists = None
        if not exists:
            conn.execute(f"CREATE DATABASE {PG_DB}")


def _filled(args: argparse.Namespace, key: str) -> int:
    """The id of the bench campaign, filling it first when the database does not hold it."""
    from bench import history_fill
    from tabletop.models import Campaign

    name = f"History bench {key}"
    found = Campaign.objects.filter(name=name).values_list("pk", flat=True).first()
    if found is not None:
        print(f"  reusing the filled campaign {found} ({name})")
        return int(found)
    from rolls.apps import LIVE_RECEIVER
    from rolls.log.append import entry_committed

    # Nobody listens: the fill's entries are not broadcast (what is written is the same).
    entry_committed.disconnect(dispatch_uid=LIVE_RECEIVER)
    started = time.perf_counter()
    campaign = history_fill.fill(
        rolls=args.rolls,
        sessions=args.sessions,
        characters=args.characters,
        played_sessions=args.played_sessions,
        seed=args.seed,
    )
    Campaign.objects.filter(pk=campaign.pk).update(name=name)
    print(f"  filled campaign {campaign.pk} in {time.perf_counter() - started:.0f} s")
    return campaign.pk


def _world(campaign_id: int) -> World:
    from rolls.models import LogEntry, Roll
    from tabletop.models import Campaign, PlaySession

    campaign = Campaign.objects.get(pk=campaign_id)
    sessions = list(PlaySession.objects.filter(campaign=campaign).order_by("number"))
    middle = sessions[len(sessions) // 2]
    membership = campaign.memberships.filter(is_gm=False).select_related("user").order_by("pk").first()
    assert membership is not None
    character = campaign.characters.filter(owner=membership.user).order_by("pk").first()
    assert character is not None
    follow = (
        LogEntry.objects.filter(campaign=campaign, kind=LogEntry.Kind.FOLLOW_UP, roll__session=middle)
        .order_by("seq")
        .first()
    )
    assert follow is not None and follow.roll_id is not None
    roll = Roll.objects.get(pk=follow.roll_id)
    return World(
        campaign=campaign.pk,
        gm=campaign.gm,
        player_user=membership.user,
        player=membership.user_id,
        character=character.pk,
        session=middle.pk,
        session_number=middle.number,
        deep=max(2, campaign.last_seq // 10),
        roll=roll.pk,
        follow_up=follow.action,
        day=middle.started.date().isoformat(),
    )


# -- measuring ----------------------------------------------------------------------------------


def _rss_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> None:
    # Linux: writing 5 resets the process's RSS high-water mark (VmHWM) to its current RSS.
    Path("/proc/self/clear_refs").write_text("5")


@dataclass
class Result:
    page: Page
    median_ms: float
    status: int
    cpu_ms: float = 0.0  # this thread's CPU: what the page costs here, whatever else runs
    whole_ms: float = 0.0
    peak_mb: float = 0.0
    size_mb: float = 0.0

    @property
    def ok(self) -> bool:
        if self.status != 200:
            return False
        if self.page.stream:
            return self.median_ms < TARGET_MS and self.peak_mb < MEMORY_MB
        return self.median_ms < TARGET_MS


def measure(page: Page, world: World, clients: dict[str, Any], repeat: int) -> Result | None:
    from django.urls import NoReverseMatch

    try:
        url = page.url(world)
    except NoReverseMatch:
        return None
    client = clients[page.persona]
    if page.stream:
        return _measure_stream(page, url, client, repeat)
    times, cpu = [], []
    status = 200
    for index in range(repeat + 2):
        if page.cold:
            from django.core.cache import cache
            from django.urls import reverse

            cache.clear()
            # The figures gone, as after a roll; the sign-in, which lives in the same cache,
            # read back by a page that counts nothing: a phone at the table has it cached.
            client.get(reverse("rolls:rules"))
        started, used = time.perf_counter(), time.thread_time()
        response = client.get(url)
        elapsed = (time.perf_counter() - started) * 1000
        status = response.status_code if status == 200 else status
        if index >= 2:
            times.append(elapsed)
            cpu.append((time.thread_time() - used) * 1000)
    return Result(page, statistics.median(times), status, cpu_ms=statistics.median(cpu))


def _measure_stream(page: Page, url: str, client: Any, repeat: int) -> Result:
    # An export takes longer than a page: fewer rounds (the whole campaign's: one).
    rounds = page.rounds or max(3, repeat // 5)
    first, whole, peaks = [], [], []
    status, size = 200, 0
    for _ in range(rounds):
        _reset_peak()
        base = _rss_mb("VmRSS")
        started = time.perf_counter()
        response = client.get(url)
        chunks = iter(response.streaming_content) if response.streaming else iter([response.content])
        size = len(next(chunks, b""))
        first.append((time.perf_counter() - started) * 1000)
        for chunk in chunks:
            size += len(chunk)
        whole.append((time.perf_counter() - started) * 1000)
        peaks.append(max(0.0, _rss_mb("VmHWM") - base))
        status = response.status_code if status == 200 else status
        response.close()
    return Result(
        page,
        statistics.median(first),
        status,
        whole_ms=statistics.median(whole),
        peak_mb=max(peaks),
        size_mb=size / 1e6,
    )


def run(args: argparse.Namespace) -> bool:
    config = args.config
    key = f"{args.rolls}r-{args.sessions}s-{args.characters}c-{args.played_sessions}p-seed{args.seed}"
    _environment(config)
    _database(config, key, args.fresh)
    import django
    from django.core.management import call_command

    django.setup()
    from django.conf import settings
    from django.test import Client

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    call_command("migrate", interactive=False, verbosity=0)
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    print(
        f"== {config} ({engine}): {args.rolls:,} rolls, {args.sessions} sessions, {args.characters} characters"
    )
    world = _world(_filled(args, key))
    from django.db import connection

    # A log of years has its planner statistics (autovacuum's ANALYZE; SQLite's optimize):
    # a table loaded a minute ago has none, and PostgreSQL then picks plans it would not.
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE" if connection.vendor == "postgresql" else "PRAGMA optimize")
    from rolls.models import LogEntry, Roll

    print(
        f"  campaign {world.campaign}: {Roll.objects.filter(campaign_id=world.campaign).count():,} rolls, "
        f"{LogEntry.objects.filter(campaign_id=world.campaign).count():,} log entries; "
        f"deep page before seq {world.deep}, session {world.session_number}, follow-up {world.follow_up!r}"
    )
    clients = {"gm": Client(), "player": Client()}
    clients["gm"].force_login(world.gm)
    clients["player"].force_login(world.player_user)
    load = os.getloadavg()
    print(f"  load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")
    print(
        f"  {'page':<36} {'median ms':>10} {'cpu ms':>7} {'whole ms':>9} {'peak MB':>8} {'size MB':>8}  target"
    )
    ok = True
    for page in [*PAGES, *STATS_PAGES]:
        if args.only and not any(word in page.label for word in args.only):
            continue
        result = measure(page, world, clients, args.repeat)
        if result is None:
            print(f"  {page.label:<36} {'not built yet':>10}")
            continue
        ok &= result.ok
        extra = (
            f"{result.whole_ms:>9.0f} {result.peak_mb:>8.1f} {result.size_mb:>8.1f}"
            if page.stream
            else f"{'':>9} {'':>8} {'':>8}"
        )
        verdict = "PASS" if result.ok else "FAIL"
        status = "" if result.status == 200 else f" (HTTP {result.status})"
        cpu = f"{result.cpu_ms:>7.1f}" if not page.stream else f"{'':>7}"
        print(f"  {page.label:<36} {result.median_ms:>10.1f} {cpu} {extra}  {verdict}{status}", flush=True)
    load = os.getloadavg()
    print(f"  load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.explain:
        explain(world)
    return ok


def explain(world: World) -> None:
    """The plans of the history's queries (``--explain``): where an index is missing."""
    from django.http import QueryDict

    from rolls.history import browse
    from tabletop.models import Membership

    membership = Membership.objects.select_related("campaign").get(campaign_id=world.campaign, user=world.gm)
    for query in (
        f"before={world.deep}",
        f"character={world.character}&before={world.deep}",
        f"follow_up={world.follow_up}",
        "outcome=failure",
        f"session={world.session}",
        f"since={world.day}&until={world.day}",
    ):
        filters = browse.HistoryFilters(QueryDict(query), membership=membership)
        assert filters.is_valid(), filters.errors
        selected = browse.entries(filters)
        before = filters.cleaned_data.get("before")
        if before:
            selected = selected.filter(seq__lt=before)
        print(f"-- {query}\n{selected.order_by('-seq')[:26].explain()}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", choices=("both", "embedded", "production"), default="both")
    parser.add_argument("--rolls", type=int, default=100_000)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--characters", type=int, default=8)
    parser.add_argument(
        "--played-sessions", type=int, default=4, help="sessions played through the services (default 4)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=15, help="requests per page (median; default 15)")
    parser.add_argument("--fresh", action="store_true", help="fill the database again")
    parser.add_argument(
        "--only", action="append", default=[], help="only the pages whose label contains this (repeatable)"
    )
    parser.add_argument("--explain", action="store_true", help="print the plans of the history's queries")
    args = parser.parse_args()
    if args.config == "both":
        # One Django per process: each database in a process of its own.
        codes = [
            subprocess.call([sys.executable, __file__, *sys.argv[1:], "--config", config])
            for config in ("embedded", "production")
        ]
        raise SystemExit(max(codes))
    raise SystemExit(0 if run(args) else 1)


if __name__ == "__main__":
    main()
