"""What the bench scripts share: a throwaway database, the tables and phones in it, real
server processes, and phones that post rolls over HTTP and listen on websockets.

Nothing here needs more than the project's own dependencies (Django, httpx, websockets,
uvicorn, psycopg, redis via channels-redis). Every server listens on 127.0.0.1 only.

Import order matters: ``prepare()`` sets the environment the app's settings read (a temporary
``TABLETOP_DATA_DIR``, or ``DATABASE_URL``/``REDIS_URL`` for the production configuration)
before Django is set up, in this process and in every server it starts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# What delivers an entry to a page: a wrapper that inserts it at the top of the feed, a feed
# card replaced in place (a follow-up), the batch's "last seq". Not the cards of the GM's
# waiting panel or a result panel, which draw older entries again with each redraw.
SEQ = re.compile(
    r'<[a-z]+ (?:hx-swap-oob="afterbegin:#feed"|id="(?:feed-roll-\d+|last-seq)")[^>]*? data-seq="(\d+)"'
)
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_BENCH_DB = "tabletop_bench"
REDIS_BENCH = "redis://127.0.0.1:6379/5"  # a database of its own, flushed before and after


# -- environment and database ---------------------------------------------------------------------


@dataclass
class Environment:
    config: str  # "embedded" or "production"
    tmp: Path
    env: dict[str, str]  # for the server processes


def prepare(config: str) -> Environment:
    """Point this process (and the servers it starts) at a fresh throwaway database, then set
    Django up and migrate."""
    if config not in ("embedded", "production"):
        raise SystemExit(f"--config must be embedded or production, not {config!r}")
    tmp = Path(tempfile.mkdtemp(prefix=f"tabletop-bench-{config}-"))
    env = {
        "DJANGO_SETTINGS_MODULE": "tabletop.settings",
        "TABLETOP_DATA_DIR": str(tmp),
        "TABLETOP_NO_BOOTSTRAP": "1",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
    }
    for name in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "PUBLIC_URL"):
        os.environ.pop(name, None)
    if config == "production":
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{PG_BENCH_DB}"
        env["REDIS_URL"] = REDIS_BENCH
        _create_pg_database()
        _flush_redis()
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    return Environment(config, tmp, env)


LOGS = Path(tempfile.gettempdir()) / "tabletop-bench-logs"


def cleanup(environment: Environment) -> None:
    """Drop the throwaway database; keep the servers' logs (in /tmp/tabletop-bench-logs/)."""
    from django.db import connections

    connections.close_all()
    logs = list(environment.tmp.glob("*.log"))
    if logs:
        keep = LOGS / environment.tmp.name
        keep.mkdir(parents=True, exist_ok=True)
        for log in logs:
            shutil.copy(log, keep / log.name)
        print(f"server logs: {keep}")
    if environment.config == "production":
        with contextlib.suppress(Exception):
            _drop_pg_database()
        with contextlib.suppress(Exception):
            _flush_redis()
    shutil.rmtree(environment.tmp, ignore_errors=True)


def _pg_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(sql)  # type: ignore[arg-type]


def _create_pg_database() -> None:
    _drop_pg_database()
    _pg_admin(f"CREATE DATABASE {PG_BENCH_DB}")


def _drop_pg_database() -> None:
    _pg_admin(f"DROP DATABASE IF EXISTS {PG_BENCH_DB} WITH (FORCE)")


def _flush_redis() -> None:
    import redis

    client = redis.Redis.from_url(REDIS_BENCH)
    try:
        client.flushdb()
    finally:
        client.close()


def channel_layer_backend() -> str:
    from django.conf import settings

    return str(settings.CHANNEL_LAYERS["default"]["BACKEND"])


# -- tables and phones ----------------------------------------------------------------------------


@dataclass
class Phone:
    user_id: int
    cookie: str  # the Cookie header: session and CSRF token
    csrf: str
    character_id: int | None  # None for the GM
    is_gm: bool

    def post_headers(self, base: str) -> dict[str, str]:
        """What htmx sends with a roll from this phone's page on ``base`` (host:port)."""
        return {
            "Cookie": self.cookie,
            "X-CSRFToken": self.csrf,
            "HX-Request": "true",
            "Referer": f"http://{base}/",
        }


@dataclass
class Table:
    campaign_id: int
    phones: list[Phone]
    last_seq: int  # the campaign's last sequence number when the phones connect
    system: str = "sixes"
    display_token: str = ""  # the table display's link (``/ws/display/<token>/``)
    # What a player's roll form sends as it starts, and the GM's quick roll (for an NPC):
    # each system's own forms, checked by them when the table is built.
    roll_data: dict[str, Any] = field(default_factory=dict)
    npc_data: dict[str, Any] = field(default_factory=dict)

    @property
    def gm(self) -> Phone:
        return next(p for p in self.phones if p.is_gm)

    @property
    def rollers(self) -> list[Phone]:
        return [p for p in self.phones if p.character_id is not None]


def _session_cookie(user: Any) -> tuple[str, str]:
    """A signed-in session for ``user``, as a browser would hold it, and a CSRF secret."""
    from importlib import import_module

    from django.conf import settings

    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    csrf = "".join(
        secrets.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(32)
    )
    return f"sessionid={session.session_key}; csrftoken={csrf}", csrf


def build_tables(count: int, sockets: int, systems: Sequence[str] = ("sixes",)) -> list[Table]:
    """``count`` campaigns with a GM and ``sockets - 1`` players, each player with a character,
    a play session open, and a signed-in session cookie per phone. The tables take the
    ``systems`` in turn (table i plays ``systems[i % len(systems)]``)."""
    import rolls.live.publish
    from rolls.campaigns import services

    if sockets < 2:
        raise SystemExit("--sockets must be at least 2 (the GM and one player who rolls)")
    # Nobody listens yet: skip the broadcasts of setup's own log entries.
    send = rolls.live.publish._send
    rolls.live.publish._send = lambda *args, **kwargs: None  # type: ignore[assignment]
    sheets = {system: bench_sheet(system) for system in systems}
    tables = []
    try:
        for t in range(count):
            system = systems[t % len(systems)]
            sheet = sheets[system]
            gm = services.player_create(display_name=f"GM {t}")
            campaign = services.campaign_create(gm=gm, name=f"Bench {t}", system=system, display_name="GM")
            phones = []
            cookie, csrf = _session_cookie(gm)
            phones.append(Phone(gm.pk, cookie, csrf, None, True))
            for p in range(sockets - 1):
                player = services.player_create(display_name=f"Kid {t}.{p}")
                services.member_join(campaign=campaign, user=player, display_name=f"Kid {p}")
                character = services.character_create(
                    campaign=campaign, owner=player, name=f"Kid {t}.{p}", sheet=sheet
                )
                cookie, csrf = _session_cookie(player)
                phones.append(Phone(player.pk, cookie, csrf, character.pk, False))
            services.session_start(campaign=campaign, actor=gm)
            campaign.refresh_from_db()
            table = Table(campaign.pk, phones, campaign.last_seq, system, campaign.display_token)
            table.roll_data, table.npc_data = _forms_data(campaign, character)
            tables.append(table)
    finally:
        rolls.live.publish._send = send  # type: ignore[assignment]
    return tables


# A doubles character's Endurance: the most a sheet may hold (DBL-10), so that a phase of the
# bench's drama dice does not run out of it (``refill`` puts it back between phases).
BENCH_ENDURANCE = 200


def bench_sheet(system: str) -> dict[str, Any]:
    """The sheet every character of a ``system`` table gets: the tests' (tests/ ships with the
    repository), so it is one its system's sheet form accepts."""
    from tests.factories import sheet_of, sixes_sheet

    if system == "sixes":
        return sixes_sheet()
    sheet = sheet_of(system)
    if system == "doubles":
        sheet["endurance_max"] = BENCH_ENDURANCE
    return sheet


def _forms_data(campaign: Any, character: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A player's roll and the GM's quick roll as their forms start (``rolls.play.formdata``, as the
    demo campaign posts them), the first trait ticked where a roll ticks what applies; both
    checked here by the forms and the engine, so a bench never measures refusals."""
    from rolls import registry
    from rolls.play.formdata import form_baseline, npc_baseline, posted
    from rolls.play.npc import NpcRollForm

    adapter = registry.table(campaign.system)
    data = form_baseline(adapter.roll_form(character=character, initial=adapter.roll_initial))
    for helper in ("helper", "helpers"):
        data.pop(helper, None)  # nobody helps: a helper is a choice of its own
    if campaign.system == "sixes":
        data["trait"] = "skill-0"  # as bench/load.py rolls
    if campaign.system == "doubles" and character.sheet.get("abilities"):
        data["abilities"] = [character.sheet["abilities"][0]["name"]]
    form = adapter.roll_form(posted(data), character=character)
    if not form.is_valid():
        raise SystemExit(f"the {campaign.system} roll form refuses the bench's roll: {form.errors_text()}")
    request_data, _ = adapter.pool(character, {**form.engine_data(), "helper": False})
    registry.engine(campaign.system).parse_request(request_data)
    npc = npc_baseline(campaign)
    npc_form = NpcRollForm(posted(npc), campaign=campaign)
    if not npc_form.is_valid():
        raise SystemExit(f"the {campaign.system} quick roll refuses the bench's: {npc_form.errors_text()}")
    npc_form.engine_request()
    return data, npc


def refill(tables: list[Table]) -> None:
    """What the bench's follow-ups spent, back on every character of ``tables``: Luck full and
    no Condition checked (sixes), Endurance full and none spent on drama (doubles). Written
    straight to the rows between phases, as a GM's corrections would set them, so that every
    phase starts from the same sheets; nothing is broadcast (no socket hears of it)."""
    from rolls.systems.sixes import CONDITIONS, luck_max
    from tabletop.models import Character

    campaigns = [t.campaign_id for t in tables]
    for character in Character.objects.filter(campaign_id__in=campaigns).select_related("campaign"):
        system = character.campaign.system
        if system == "sixes":
            character.luck = luck_max(int(character.sheet["age"]))
            character.sheet = {**character.sheet, "conditions": {c: False for c in CONDITIONS}}
            character.save(update_fields=["luck", "sheet"])
        elif system == "doubles":
            character.endurance = int(character.sheet.get("endurance_max", 0))
            character.drama_spent = 0
            character.save(update_fields=["endurance", "drama_spent"])


def last_seqs(campaign_ids: list[int]) -> dict[int, int]:
    """The campaigns' last sequence numbers, read in a short connection of its own."""
    from django.db import connection

    from tabletop.models import Campaign

    try:
        return dict(Campaign.objects.filter(pk__in=campaign_ids).values_list("pk", "last_seq"))
    finally:
        connection.close()


# -- server processes -----------------------------------------------------------------------------


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config`` and ``--workers``, as every script takes them."""
    parser.add_argument("--config", choices=["embedded", "production"], default="embedded")
    parser.add_argument(
        "--workers", type=int, default=None, help="server processes (default 1; 2 for production)"
    )


def check_server_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Fill in the default worker count; several workers need PostgreSQL + Redis."""
    if args.workers is None:
        args.workers = 2 if args.config == "production" else 1
    if args.workers > 1 and args.config != "production":
        parser.error("several workers need --config production (PostgreSQL + Redis)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# The app's module is imported first: the baseline configures Django's settings itself.
SERVER = """
import importlib, sys, uvicorn
importlib.import_module(sys.argv[1].split(":")[0])
from tabletop.management.commands.serve import uvicorn_options
options = uvicorn_options(host="127.0.0.1", port=int(sys.argv[2]), workers=int(sys.argv[3]))
uvicorn.run(sys.argv[1], **options)
"""


class Server:
    """A uvicorn process (and its workers) started with the options of ``manage.py serve``."""

    def __init__(
        self,
        environment: Environment,
        app: str,
        workers: int = 1,
        extra_env: dict[str, str] | None = None,
        profile: str | None = None,
        profile_mode: str = "samples",
        gc_pauses: Path | None = None,
    ):
        self.port = free_port()
        self.app = app
        self.workers = workers
        self.log_path = environment.tmp / f"server-{app.split(':')[0]}-{self.port}.log"
        self.env = {**os.environ, **environment.env, **(extra_env or {})}
        if app.startswith("bench.baseline"):
            self.env.pop("DJANGO_SETTINGS_MODULE", None)  # it configures Django itself
        if profile:
            # bench/sampler.py in every serving process, writing to ``profile``.
            self.env["BENCH_PROFILE"] = str(Path(profile) / app.split(":")[0])
            self.env["BENCH_PROFILE_TARGET"] = app.split(":")[0]
            self.env["BENCH_PROFILE_MODE"] = profile_mode
            self.app = "bench.profiled:application"
        self.gc_pauses = gc_pauses
        if gc_pauses:
            # Every collection of every serving process, timed (bench/gc_timed.py).
            self.env["BENCH_GC_PAUSES"] = str(gc_pauses)
            self.env["BENCH_GC_TARGET"] = self.app
            self.app = "bench.gc_timed:application"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Server:
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER, self.app, str(self.port), str(self.workers)],
            cwd=ROOT,
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{self.app} did not start:\n{self.log_path.read_text()}") from None
                time.sleep(0.1)
        if self.workers > 1:
            # Every worker must be up, not just the one that answered first.
            deadline = time.monotonic() + 60
            while len(self.worker_pids()) < self.workers and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1.0)
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(Exception):
            self._log.close()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def pids(self) -> list[int]:
        assert self.process is not None
        return [self.process.pid, *self.worker_pids()]

    def worker_pids(self) -> list[int]:
        """uvicorn's worker processes (children of the supervisor; multiprocessing's resource
        tracker is left out)."""
        assert self.process is not None
        pids = child_pids(self.process.pid)
        return [pid for pid in pids if "resource_tracker" not in _cmdline(pid)]

    def serving_pids(self) -> list[int]:
        """The processes that serve requests: the workers, or the one process."""
        return self.worker_pids() if self.workers > 1 else self.pids()[:1]

    def sweep_gc(self, timeout: float = 10.0) -> int:
        """The objects a full collection of every serving process finds now, frozen ones
        included (bench/gc_timed.py, ``SIGUSR1``); 0 without ``gc_pauses``."""
        if not self.gc_pauses:
            return 0
        for old in self.gc_pauses.glob("sweep-*.txt"):
            old.unlink()
        pids = self.serving_pids()
        for pid in pids:
            os.kill(pid, signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = list(self.gc_pauses.glob("sweep-*.txt"))
            if len(found) >= len(pids):
                return sum(int(path.read_text().split()[0]) for path in found)
            time.sleep(0.1)
        raise RuntimeError(f"no sweep from {pids} in {timeout} s")

    def rss_mb(self) -> float:
        """Resident memory of the serving processes, in MB."""
        return sum(rss_mb(pid) for pid in self.serving_pids())

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids())

    def loop_cpu_seconds(self) -> float:
        """The CPU time of the main threads of ``pids()``: the serving processes' run the event
        loop (HTTP, sockets, the channel layer); a supervisor's, with workers, waits. The rest
        of ``cpu_seconds``, over the same processes, is their other threads (the app's request
        threads and collector, Django's thread per request in the baseline)."""
        return sum(cpu_seconds(pid, thread=pid) for pid in self.pids())

    def errors(self) -> list[str]:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return [line for line in text.splitlines() if "Traceback" in line or "ERROR" in line]


def child_pids(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc); none once it is gone."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(p) for p in handle.read().split()]
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of process ``pid`` so far (every thread, ended ones included), or of its
    one thread ``thread``."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        with open(path) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def read_gc_pauses(directory: Path, start: float, end: float) -> list[tuple[float, int, float, int]]:
    """(pause ms, generation, CPU ms, objects freed) of every collection of every serving process (bench/gc_timed.py) that started in
    [start, end] of ``time.monotonic``."""
    found = []
    for path in directory.glob("gc-*.txt"):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            at, ms, gen, freed, cpu = line.split()
            if start <= float(at) <= end:
                found.append((float(ms), int(gen), float(cpu), int(freed)))
    return found


# -- the phones' side -----------------------------------------------------------------------------


@dataclass
class Listener:
    """One phone's socket: which entries it received, when, and what went wrong."""

    table: int  # index into the tables
    phone: Phone
    first_seen: dict[int, float] = field(default_factory=dict)
    duplicates: int = 0
    out_of_order: int = 0
    messages: int = 0
    highest: int = 0
    closed_unexpectedly: int = 0
    socket: Any = None
    task: asyncio.Task[None] | None = None

    def take(self, text: str, now: float) -> None:
        """Count the entries one message delivers: each seq once per message; a seq that an
        earlier message delivered already is a duplicate; one lower than the highest seen is
        out of order."""
        self.messages += 1
        for seq in dict.fromkeys(int(s) for s in SEQ.findall(text)):
            if seq in self.first_seen:
                self.duplicates += 1
                continue
            if seq < self.highest:
                self.out_of_order += 1
            self.first_seen[seq] = now
            self.highest = max(self.highest, seq)


def ws_url(base: str, path: str) -> str:
    return f"ws://{base}{path}"


async def open_socket(base: str, path: str, phone: Phone, since: int | None) -> Any:
    import websockets

    headers = {"Origin": f"http://{base}"}
    if phone.cookie:  # the table display has a link, not a session
        headers["Cookie"] = phone.cookie
    socket = await websockets.connect(
        ws_url(base, path),
        additional_headers=headers,
        ping_interval=None,  # phones' browsers do not ping; the server does
        max_size=None,
        open_timeout=60,
    )
    if since is not None:
        await socket.send(json.dumps({"since": since}))
    return socket


async def listen(listener: Listener, socket: Any) -> None:
    import websockets

    try:
        async for message in socket:
            listener.take(message if isinstance(message, str) else message.decode(), time.perf_counter())
    except websockets.ConnectionClosed:
        pass
    except asyncio.CancelledError:
        raise
    except Exception:
        listener.closed_unexpectedly += 1


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


_TLS: list[Any] = []


def phone_client(base: str) -> Any:
    """One phone's HTTP client to ``base`` (host:port), with its own keep-alive connection as a
    real phone has: with one shared pool, the few connections it keeps all land on one worker
    of several. Idle connections are kept as long as a browser keeps them (minutes; httpx's
    default is 5 s): the server's keep-alive timeout is what closes them."""
    import ssl

    import httpx

    if not _TLS:
        _TLS.append(ssl.create_default_context())  # built once: loading it costs ms
    return httpx.AsyncClient(
        base_url=f"http://{base}",
        cookies=no_cookies(),
        limits=httpx.Limits(max_connections=2, max_keepalive_connections=1, keepalive_expiry=300),
        timeout=60,
        verify=_TLS[0],
    )


def no_cookies() -> Any:
    """A cookie jar that keeps nothing: every request carries its own phone's cookies."""
    from http.cookiejar import CookieJar, DefaultCookiePolicy

    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


def machine_busy_seconds() -> float:
    """CPU time every process on the machine has used since boot (all cores), in seconds."""
    with open("/proc/stat") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def service_cpu() -> dict[int, float]:
    """CPU seconds so far of the processes that serve the servers' data: PostgreSQL's
    backends connected to the bench's database, and Redis (one server for the whole machine:
    other people's use of it is counted too). Empty for the embedded default, whose SQLite
    runs inside the server processes."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        line = _cmdline(int(entry))
        if line.startswith("redis-server") or (line.startswith("postgres:") and f" {PG_BENCH_DB} " in line):
            found[int(entry)] = cpu_seconds(int(entry))
    return found


@contextlib.contextmanager
def cpu_meter(server: Server) -> Iterator[dict[str, float]]:
    """CPU use of the server processes, of this load generator and of everything else on
    the machine (other people's tests skew a 2-core box) while the block runs, in percent of
    one core."""
    figures: dict[str, float] = {}
    start = time.monotonic()
    server_start = server.cpu_seconds()
    loop_start = server.loop_cpu_seconds()
    own_start = time.process_time()
    machine_start = machine_busy_seconds()
    # PostgreSQL and Redis serve the production configuration only (Redis is the machine's).
    production = bool(server.env.get("DATABASE_URL"))
    services_start = service_cpu() if production else {}
    yield figures
    elapsed = max(time.monotonic() - start, 1e-9)
    services_end = service_cpu() if production else {}  # a backend that ended is not counted
    figures["services_s"] = sum(cpu - services_start.get(pid, 0.0) for pid, cpu in services_end.items())
    figures["services"] = 100 * figures["services_s"] / elapsed
    figures["server_s"] = server.cpu_seconds() - server_start
    figures["loop_s"] = server.loop_cpu_seconds() - loop_start
    figures["server"] = 100 * figures["server_s"] / elapsed
    figures["client"] = 100 * (time.process_time() - own_start) / elapsed
    machine = 100 * (machine_busy_seconds() - machine_start) / elapsed
    figures["other"] = max(0.0, machine - figures["server"] - figures["client"] - figures["services"])
