"""Load: T tables x C phone sockets at R rolls per second, through the real roll endpoint and
the real sockets, against the app and against the bare Channels baseline in the same run.

    .venv/bin/python bench/load.py --tables 100 --sockets 6 --rate 50 --seconds 30
    .venv/bin/python bench/load.py --rate 100 --sweep
    .venv/bin/python bench/load.py --config production --workers 2 --rate 50

For each table: a GM and ``sockets - 1`` players, each a signed-in phone with one socket on
the campaign page; the players post rolls (``rolls:roll-create``, as htmx does) round-robin,
spread over every player so nobody passes the rate limit (60 rolls a minute). Latency is the
time from sending the POST to the moment each socket of that table receives the entry (its
``data-seq`` on a feed card, the wrapper that inserts one or the batch's "last seq": not on
the cards a waiting panel draws again, ``harness.SEQ``); expected deliveries are rolls x
sockets of that table. A seq is delivered once per message that carries it; a later message
carrying it again is a duplicate.

Prints p50/p95/p99 of that latency, delivered/expected, duplicates, the server's memory and
CPU, then the same for the baseline (``bench/baseline.py``) and the ratio, and PASS/FAIL for
the targets these parameters correspond to. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.harness import Listener, Phone, Server, Table

SWEEP_P99_MS = 150.0
GC_PAUSE_MS = 10.0
CPU_RATIO_TARGET = 1.5  # the app's CPU per plain roll against the baseline's, in the same run
ROLL_DATA = {"trait": "skill-0", "need": "1"}
PUSH_CONDITIONS = ("Upset", "Scared", "Exhausted", "Injured")  # a kid's Conditions, Broken last
FOLLOW_UP_PATH = re.compile(r'hx-post="(/c/\d+/rolls/\d+/follow-up/)"')
RESPONSE_SEQ = re.compile(r'data-seq="(\d+)"')


@dataclass
class Target:
    """How to reach one server: the app, or the baseline."""

    name: str
    server: Server
    roll_path: Callable[[Table, Phone], str]
    ws_path: Callable[[Table, Phone], str]
    # The follow-up (a push) of the roll whose answer this is, or None: the baseline has none.
    push_path: Callable[[Table, str], str | None] = lambda table, answer: None


@dataclass
class Phase:
    rate: float
    seconds: float
    posted: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    expected: int = 0
    delivered: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    latencies: list[float] = field(default_factory=list)  # ms, one per delivery
    post_ms: list[float] = field(default_factory=list)
    lag_ms: list[float] = field(default_factory=list)  # how late the generator sent
    # Per roll, in the order sent: (seconds into the run, POST ms, ms until its slowest socket).
    timeline: list[tuple[float, float, float]] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    achieved_rate: float = 0.0
    # Follow-ups (pushes) by status; -1: the roll offered none.
    follow_ups: Counter[int] = field(default_factory=Counter)
    # Every garbage collection of the serving processes during the run: (pause ms as the
    # clock saw it, generation, CPU ms it took, objects it freed).
    gc_pauses: list[tuple[float, int, float, int]] = field(default_factory=list)
    gc_swept: int = 0  # objects in cycles found by a sweep after the run (bench/gc_timed.py)

    @property
    def gc_max_ms(self) -> float:
        return max((pause[0] for pause in self.gc_pauses), default=0.0)

    @property
    def gc_freed_per_roll(self) -> float:
        return (sum(pause[3] for pause in self.gc_pauses) + self.gc_swept) / max(self.posted, 1)

    def gc_summary(self, generation: int | None = None, cpu: bool = False) -> str:
        """How many collections (of ``generation``, or all), their p99 and max pause (or CPU)
        in ms."""
        pauses = [c if cpu else ms for ms, gen, c, _ in self.gc_pauses if generation in (None, gen)]
        if not pauses:
            return "0"
        return f"{len(pauses)} {fmt(harness.percentile(pauses, 99))}/{fmt(max(pauses))}"

    @property
    def lost(self) -> int:
        return self.expected - self.delivered

    @property
    def cpu_ms_per_entry(self) -> float:
        """CPU of the servers and of PostgreSQL and Redis, per roll served (a log entry)."""
        served = self.statuses.get(200, 0) + self.follow_ups.get(200, 0)
        if not served:
            return math.nan
        return 1000 * (self.cpu.get("server_s", 0.0) + self.cpu.get("services_s", 0.0)) / served

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != 200)

    def p(self, q: float) -> float:
        return harness.percentile(self.latencies, q)

    @property
    def p99(self) -> float:
        # A lost delivery has no latency; it makes p99 infinite rather than flattering.
        if self.lost * 100 > self.expected:
            return math.inf
        return self.p(99)

    def holds(self, limit_ms: float) -> bool:
        return self.p99 < limit_ms and self.lost == 0 and self.errors == 0


class Driver:
    """Phones with open sockets on one server; runs phases of rolls at a given rate."""

    def __init__(self, target: Target, tables: list[Table]):
        self.target = target
        self.tables = tables
        self.listeners: list[Listener] = []
        self.by_table: dict[int, list[Listener]] = defaultdict(list)
        # Round-robin over tables first, so each table gets rate / T rolls a second.
        width = max(len(t.rollers) for t in tables)
        self.rollers = [
            (i, table.rollers[p])
            for p in range(width)
            for i, table in enumerate(tables)
            if p < len(table.rollers)
        ]
        self.paths = {id(phone): target.roll_path(tables[i], phone) for i, phone in self.rollers}
        self.next_roller = 0
        # One HTTP client (and keep-alive connection) per phone (``harness.phone_client``).
        self.clients: dict[int, Any] = {}

    def client_for(self, phone: Phone) -> Any:
        client = self.clients.get(id(phone))
        if client is None:
            client = self.clients[id(phone)] = harness.phone_client(self.target.server.base)
        return client

    async def connect(self, concurrency: int = 20) -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int, table: Table, phone: Phone) -> None:
            listener = Listener(i, phone)
            async with gate:
                listener.socket = await harness.open_socket(
                    self.target.server.base, self.target.ws_path(table, phone), phone, table.last_seq
                )
            listener.task = asyncio.create_task(harness.listen(listener, listener.socket))
            self.listeners.append(listener)
            self.by_table[i].append(listener)

        await asyncio.gather(*(one(i, t, p) for i, t in enumerate(self.tables) for p in t.phones))

    async def close(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self.clients.values()))
        for listener in self.listeners:
            await listener.socket.close()
        await asyncio.gather(*(lst.task for lst in self.listeners if lst.task), return_exceptions=True)

    async def phase(self, rate: float, seconds: float, drain: float = 10.0, push_every: int = 0) -> Phase:
        """Rolls at ``rate`` for ``seconds``; with ``push_every`` N, every Nth roll is pushed
        by its roller half a second after its answer (a follow-up: an entry of its own)."""
        import httpx

        result = Phase(rate, seconds)
        posts: list[tuple[int, int, float, float]] = []  # (table, seq, sent at, POST ms)
        base = self.target.server.base
        dup_before = sum(lst.duplicates for lst in self.listeners)
        ooo_before = sum(lst.out_of_order for lst in self.listeners)
        peak = [0.0]
        pushes = [0]
        pushed_by: Counter[int] = Counter()

        async def sample_rss() -> None:
            while True:
                peak[0] = max(peak[0], self.target.server.rss_mb())
                await asyncio.sleep(1.0)

        async def fire(table: int, phone: Phone, scheduled: float) -> None:
            sent = time.perf_counter()
            result.lag_ms.append((sent - scheduled) * 1000)
            try:
                response = await self.client_for(phone).post(
                    self.paths[id(phone)],
                    data=ROLL_DATA,
                    headers=phone.post_headers(base),
                )
            except httpx.HTTPError:
                result.statuses[0] += 1
                return
            post_ms = (time.perf_counter() - sent) * 1000
            result.post_ms.append(post_ms)
            result.statuses[response.status_code] += 1
            if response.status_code == 200 and (match := RESPONSE_SEQ.search(response.text)):
                posts.append((table, int(match.group(1)), sent, post_ms))
                pushes[0] += 1
                if push_every and pushes[0] % push_every == 0:
                    await push(table, phone, response.text)

        async def push(table: int, phone: Phone, answer: str) -> None:
            path = self.target.push_path(self.tables[table], answer)
            if path is None:
                result.follow_ups[-1] += 1  # the roll offers no push (a six, or a baseline card)
                return
            await asyncio.sleep(0.5)  # a player reads the dice, then taps "push"
            conditions = PUSH_CONDITIONS
            data = {"action": "push", "condition": conditions[pushed_by[id(phone)] % len(conditions)]}
            pushed_by[id(phone)] += 1
            sent = time.perf_counter()
            try:
                response = await self.client_for(phone).post(
                    path, data={**data, "description": "pedals harder"}, headers=phone.post_headers(base)
                )
            except httpx.HTTPError:
                result.follow_ups[0] += 1
                return
            result.follow_ups[response.status_code] += 1
            if response.status_code == 200 and (match := RESPONSE_SEQ.search(response.text)):
                posts.append((table, int(match.group(1)), sent, (time.perf_counter() - sent) * 1000))

        # What the warm-up left in frozen cycles is not this run's (bench/gc_timed.py).
        self.target.server.sweep_gc()
        sampler = asyncio.create_task(sample_rss())
        tasks = []
        count = max(1, round(rate * seconds))
        with harness.cpu_meter(self.target.server) as cpu:
            start = time.perf_counter()
            run_from = time.monotonic()
            for n in range(count):
                scheduled = start + n / rate
                delay = scheduled - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                table, phone = self.rollers[self.next_roller % len(self.rollers)]
                self.next_roller += 1
                tasks.append(asyncio.create_task(fire(table, phone, scheduled)))
            await asyncio.gather(*tasks)
            run_to = time.monotonic()
            result.achieved_rate = count / max(time.perf_counter() - start, 1e-9)
            # Wait for every socket to have every entry, or for the drain time to pass.
            deadline = time.perf_counter() + drain
            while time.perf_counter() < deadline:
                if all(seq in lst.first_seen for t, seq, _, _ in posts for lst in self.by_table[t]):
                    break
                await asyncio.sleep(0.05)
        sampler.cancel()
        result.cpu = dict(cpu)
        if self.target.server.gc_pauses:
            await asyncio.sleep(1.2)  # the servers write their collections once a second
            result.gc_pauses = harness.read_gc_pauses(self.target.server.gc_pauses, run_from, run_to)
            # The cycles the run left that the collections did not walk (frozen survivors).
            result.gc_swept = self.target.server.sweep_gc()
        result.posted = count
        for table, seq, sent, post_ms in sorted(posts, key=lambda post: post[2]):
            slowest = 0.0
            for lst in self.by_table[table]:
                result.expected += 1
                seen = lst.first_seen.get(seq)
                if seen is not None:
                    result.delivered += 1
                    result.latencies.append((seen - sent) * 1000)
                slowest = max(slowest, (seen - sent) * 1000 if seen is not None else math.inf)
            result.timeline.append((sent - start, post_ms, slowest))
        # Failed POSTs are counted as errors; their entries (if any) were never expected.
        result.duplicates = sum(lst.duplicates for lst in self.listeners) - dup_before
        result.out_of_order = sum(lst.out_of_order for lst in self.listeners) - ooo_before
        result.rss_mb = self.target.server.rss_mb()
        result.peak_rss_mb = max(peak[0], result.rss_mb)
        return result

    async def sweep(
        self, start: float, seconds: float, limit_ms: float, ceiling: float
    ) -> tuple[Phase | None, list[Phase]]:
        """The highest rate whose p99 stays under ``limit_ms`` with nothing lost: grow by half
        until it fails, then halve the gap three times."""
        phases: list[Phase] = []
        best: Phase | None = None
        low, high = 0.0, None
        rate = start
        while rate <= ceiling:
            phase = await self._sweep_step(rate, seconds, phases)
            if phase.holds(limit_ms):
                best, low = phase, rate
                rate = round(rate * 1.5)
            else:
                high = rate
                break
        if high is None:
            return best, phases
        for _ in range(3):
            rate = round((low + high) / 2)
            if rate in (low, high):
                break
            phase = await self._sweep_step(rate, seconds, phases)
            if phase.holds(limit_ms):
                best, low = phase, rate
            else:
                high = rate
        return best, phases

    async def _sweep_step(self, rate: float, seconds: float, phases: list[Phase]) -> Phase:
        phase = await self.phase(rate, seconds)
        phases.append(phase)
        print(
            f"  {self.target.name:8} {rate:6.0f}/s  p99 {fmt(phase.p99):>8} ms  lost {phase.lost}"
            f"  errors {phase.errors}  server CPU {phase.cpu.get('server', 0):.0f}%"
            f"  client CPU {phase.cpu.get('client', 0):.0f}%",
            flush=True,
        )
        await self.settle()  # what an overloaded step left queued must not weigh on the next
        return phase

    async def settle(self, limit: float = 90.0) -> None:
        """Wait until the server has worked off what it had queued: a second in which it used
        less than a tenth of a core (at most ``limit`` seconds)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            before = self.target.server.cpu_seconds()
            await asyncio.sleep(1)
            if self.target.server.cpu_seconds() - before < 0.1:
                return


def fmt(value: float) -> str:
    if math.isinf(value):
        return "inf"
    if math.isnan(value):
        return "-"
    return f"{value:.1f}"


async def run_target(target: Target, tables: list[Table], args: argparse.Namespace) -> dict[str, object]:
    driver = Driver(target, tables)
    t0 = time.perf_counter()
    await driver.connect()
    connect_s = time.perf_counter() - t0
    await asyncio.sleep(3)  # presence updates of the connect storm settle
    out: dict[str, object] = {
        "target": target.name,
        "connect_s": connect_s,
        "rss_idle": target.server.rss_mb(),
    }
    if args.warmup > 0:
        await driver.phase(args.rate, args.warmup, drain=5)
        await asyncio.sleep(2)
    if target.server.env.get("BENCH_PROFILE"):
        (Path(target.server.env["BENCH_PROFILE"]) / "reset").touch()  # profile the measured run only
        await asyncio.sleep(1)
    out["main"] = main = await driver.phase(args.rate, args.seconds, push_every=args.push_every)
    if args.timeline:
        write_timeline(Path(args.timeline) / f"{target.name}.txt", main)
    if args.sweep:
        print(
            f"sweep ({target.name}): highest rate with p99 < {SWEEP_P99_MS:.0f} ms and nothing lost",
            flush=True,
        )
        await driver.settle()
        best, phases = await driver.sweep(
            args.sweep_start, args.sweep_seconds, SWEEP_P99_MS, args.sweep_ceiling
        )
        out["sweep_best"] = best
        out["sweep_phases"] = phases
    out["errors"] = target.server.errors()
    await driver.close()
    return out


def write_timeline(path: Path, phase: Phase) -> None:
    """One line per roll of the measured run, in the order sent: when, how long its POST took,
    how long until its slowest socket had it. Shows whether a tail is queueing (slow rolls
    spread over the run) or stalls (slow rolls in bursts, and how often)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# seconds  post_ms  slowest_socket_ms"]
    lines += [f"{at:8.3f} {post:8.1f} {slowest:8.1f}" for at, post, slowest in phase.timeline]
    path.write_text("\n".join(lines) + "\n")
    print(f"timeline ({path.stem}): {path}", flush=True)


def app_target(server: Server, table_mix: bool = False) -> Target:
    from django.urls import reverse

    def ws_path(table: Table, phone: Phone) -> str:
        # As a table plays: each player on their roll screen, the GM on the console.
        if table_mix and phone.character_id is not None:
            return f"/ws/c/{table.campaign_id}/?character={phone.character_id}"
        return f"/ws/c/{table.campaign_id}/"

    def push_path(table: Table, answer: str) -> str | None:
        found = FOLLOW_UP_PATH.search(answer)
        return found.group(1) if found and 'value="push"' in answer else None

    return Target(
        "app",
        server,
        lambda table, phone: reverse("rolls:roll-create", args=[table.campaign_id, phone.character_id]),
        ws_path,
        push_path,
    )


def baseline_target(server: Server) -> Target:
    return Target(
        "baseline",
        server,
        lambda table, phone: f"/t/{table.campaign_id}/roll/",
        lambda table, phone: f"/ws/t/{table.campaign_id}/",
    )


def report(args: argparse.Namespace, results: dict[str, dict[str, object]], setup_s: float) -> bool:
    names = list(results)
    print()
    print(
        f"Tabletop load: {args.config}, {args.workers} worker(s), {args.tables} tables x {args.sockets} sockets "
        f"= {args.tables * args.sockets} sockets, {args.rate:g} rolls/s for {args.seconds:g} s "
        f"(channel layer {harness.channel_layer_backend().rsplit('.', 1)[-1]}; setup {setup_s:.0f} s)"
    )
    per_user = args.rate * 60 / (args.tables * (args.sockets - 1))
    print(f"  rolls per player: {per_user:.1f}/min (limit 60/min)")
    rows: list[tuple[str, Callable[[Phase, dict[str, object]], str]]] = [
        # First: what a log entry costs, whatever the machine's other work did to latency.
        ("CPU ms per log entry", lambda p, r: fmt(p.cpu_ms_per_entry)),
        (
            "  of it PostgreSQL+Redis",
            lambda p, r: fmt(
                1000
                * p.cpu.get("services_s", 0.0)
                / max(p.statuses.get(200, 0) + p.follow_ups.get(200, 0), 1)
            ),
        ),
        ("rolls posted", lambda p, r: f"{p.posted}"),
        (
            "follow-ups by status",
            lambda p, r: " ".join(f"{k}:{v}" for k, v in sorted(p.follow_ups.items())) or "-",
        ),
        ("achieved rate /s", lambda p, r: f"{p.achieved_rate:.1f}"),
        ("POST errors", lambda p, r: f"{p.errors}" + (f" {dict(p.statuses)}" if p.errors else "")),
        ("delivered/expected", lambda p, r: f"{p.delivered}/{p.expected}"),
        ("lost", lambda p, r: f"{p.lost}"),
        ("duplicates", lambda p, r: f"{p.duplicates}"),
        # The baseline numbers its entries per worker process: their order means nothing.
        ("out of order", lambda p, r: "n/a" if r.get("target") == "baseline" else f"{p.out_of_order}"),
        ("latency p50 ms", lambda p, r: fmt(p.p(50))),
        ("latency p95 ms", lambda p, r: fmt(p.p(95))),
        ("latency p99 ms", lambda p, r: fmt(p.p99)),
        ("latency max ms", lambda p, r: fmt(max(p.latencies, default=math.nan))),
        (
            "POST p50/p99 ms",
            lambda p, r: f"{fmt(harness.percentile(p.post_ms, 50))}/{fmt(harness.percentile(p.post_ms, 99))}",
        ),
        ("generator lag p99 ms", lambda p, r: fmt(harness.percentile(p.lag_ms, 99))),
        # The serving processes' collections while the rolls were sent: every thread waits.
        ("GC pauses n p99/max ms", lambda p, r: p.gc_summary()),
        ("  their CPU n p99/max ms", lambda p, r: p.gc_summary(cpu=True)),
        ("  generation 0, CPU", lambda p, r: p.gc_summary(0, cpu=True)),
        ("  generation 1", lambda p, r: p.gc_summary(1)),
        ("  generation 1, CPU", lambda p, r: p.gc_summary(1, cpu=True)),
        ("  generation 2 (full)", lambda p, r: p.gc_summary(2)),
        ("  objects in cycles per roll", lambda p, r: f"{p.gc_freed_per_roll:.0f}" if p.gc_pauses else "-"),
        ("server CPU % of a core", lambda p, r: f"{p.cpu.get('server', 0):.0f}"),
        ("load gen CPU % of a core", lambda p, r: f"{p.cpu.get('client', 0):.0f}"),
        ("other processes CPU %", lambda p, r: f"{p.cpu.get('other', 0):.0f}"),
        (
            "server RSS MB idle/end/peak",
            lambda p, r: f"{r['rss_idle']:.0f}/{p.rss_mb:.0f}/{p.peak_rss_mb:.0f}",
        ),
        ("sockets connected in s", lambda p, r: f"{r['connect_s']:.1f}"),
        ("server log errors", lambda p, r: f"{len(r['errors'])}"),  # type: ignore[arg-type]
    ]
    print(f"  {'':28}" + "".join(f"{n:>22}" for n in names))
    for label, value in rows:
        print(f"  {label:28}" + "".join(f"{value(results[n]['main'], results[n]):>22}" for n in names))  # type: ignore[arg-type]
    app: Phase = results["app"]["main"]  # type: ignore[assignment]
    ratio_sweep = None
    if "baseline" in results:
        base: Phase = results["baseline"]["main"]  # type: ignore[assignment]
        print(
            f"  app/baseline CPU per log entry: {app.cpu_ms_per_entry / base.cpu_ms_per_entry:.2f}"
            f"  (target: at most {CPU_RATIO_TARGET:g})"
        )
        print(f"  app/baseline p99 ratio: {app.p99 / base.p99:.2f}  (p50 ratio {app.p(50) / base.p(50):.2f})")
    if args.sweep:
        for name in names:
            best: Phase | None = results[name].get("sweep_best")  # type: ignore[assignment]
            print(
                f"  sweep {name}: highest rate with p99 < {SWEEP_P99_MS:.0f} ms: "
                + (f"{best.rate:g}/s (p99 {fmt(best.p99)} ms)" if best else "none")
            )
        if "baseline" in results:
            a = results["app"].get("sweep_best")
            b = results["baseline"].get("sweep_best")
            if a and b:
                ratio_sweep = a.rate / b.rate  # type: ignore[attr-defined]
                print(f"  app/baseline highest-rate ratio: {ratio_sweep:.2f}")
    for name in names:
        errors: list[str] = results[name]["errors"]  # type: ignore[assignment]
        if errors:
            print(f"  {name} server log: {errors[:3]}")
    return targets(args, app, ratio_sweep)


def targets(args: argparse.Namespace, app: Phase, ratio_sweep: float | None) -> bool:
    """PASS/FAIL for the targets these parameters are; True when all that apply pass."""
    shape = (args.tables, args.sockets, args.rate)
    checks: list[tuple[str, bool]] = []
    embedded = args.config == "embedded"
    if embedded and shape == (100, 6, 50):
        checks.append(("1: 100x6 at 50/s, p99 < 50 ms, nothing lost", app.holds(50)))
    if embedded and shape == (100, 6, 100):
        checks.append(("2: 100 rolls/s sustained, p99 < 150 ms", app.holds(150)))
    if embedded and args.sweep and ratio_sweep is not None:
        checks.append(
            (
                f"2: highest rate (p99 < 150 ms) >= 60% of the baseline's ({ratio_sweep:.0%})",
                ratio_sweep >= 0.6,
            )
        )
    if embedded and shape == (200, 6, 100):
        checks.append(("3: embedded 200x6 at 100/s, p99 < 150 ms", app.holds(150)))
    if not embedded and args.workers == 2 and shape == (100, 6, 50):
        checks.append(("4: PostgreSQL + Redis, 2 workers, 100x6 at 50/s, p99 < 100 ms", app.holds(100)))
    if args.rate == 50 and args.seconds >= 60 and app.gc_pauses:
        checks.append(
            (
                f"GC: no collection pause over {GC_PAUSE_MS:.0f} ms in {args.seconds:g} s at 50/s "
                f"(max {app.gc_max_ms:.1f} ms)",
                app.gc_max_ms <= GC_PAUSE_MS,
            )
        )
    if not checks:
        print("  (no target has exactly these parameters: figures only)")
    for label, ok in checks:
        print(f"  target {label}: {'PASS' if ok else 'FAIL'}")
    return all(ok for _, ok in checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--sockets", type=int, default=6, help="phones (sockets) per table: a GM and players")
    parser.add_argument("--rate", type=float, default=50, help="rolls per second over all tables")
    parser.add_argument("--seconds", type=float, default=30, help="length of the measured run")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of rolls before measuring")
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--baseline",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the bare Channels baseline (bench/baseline.py)",
    )
    parser.add_argument(
        "--sweep", action="store_true", help=f"find the highest rate with p99 < {SWEEP_P99_MS:.0f} ms"
    )
    parser.add_argument("--sweep-start", type=float, default=50)
    parser.add_argument("--sweep-seconds", type=float, default=10)
    parser.add_argument("--sweep-ceiling", type=float, default=2000)
    parser.add_argument(
        "--app", default="tabletop.asgi:application", help="the ASGI app to serve (an experiment of yours)"
    )
    parser.add_argument(
        "--timeline",
        metavar="DIR",
        help="write each roll of the measured run to DIR/app.txt, DIR/baseline.txt",
    )
    parser.add_argument(
        "--table-mix",
        action="store_true",
        help="players' sockets on their roll screens, the GM's on the console (the app only)",
    )
    parser.add_argument(
        "--push-every",
        type=int,
        default=0,
        metavar="N",
        help="push every Nth roll half a second after its answer (a follow-up; the app only)",
    )
    parser.add_argument(
        "--gc-pauses",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time every garbage collection of the servers (bench/gc_timed.py)",
    )
    parser.add_argument("--profile", metavar="DIR", help="run bench/sampler.py in the servers, write to DIR")
    parser.add_argument(
        "--profile-mode",
        choices=["samples", "sections"],
        default="samples",
        help="stack samples, or the CPU time of named functions and threads",
    )
    args = parser.parse_args(argv)
    harness.check_server_arguments(parser, args)

    environment = harness.prepare(args.config)
    try:
        t0 = time.perf_counter()
        tables = harness.build_tables(args.tables, args.sockets)
        setup_s = time.perf_counter() - t0
        from django.db import connections

        connections.close_all()
        results: dict[str, dict[str, object]] = {}
        with Server(
            environment,
            args.app,
            args.workers,
            profile=args.profile,
            profile_mode=args.profile_mode,
            gc_pauses=environment.tmp / "gc-app" if args.gc_pauses else None,
        ) as server:
            results["app"] = asyncio.run(run_target(app_target(server, args.table_mix), tables, args))
        if args.baseline:
            layer = {"BENCH_CHANNEL_LAYER": harness.channel_layer_backend()}
            if args.config == "production":
                harness._flush_redis()
            with Server(
                environment,
                "bench.baseline:application",
                args.workers,
                extra_env=layer,
                profile=args.profile,
                profile_mode=args.profile_mode,
                gc_pauses=environment.tmp / "gc-baseline" if args.gc_pauses else None,
            ) as server:
                results["baseline"] = asyncio.run(run_target(baseline_target(server), tables, args))
        ok = report(args, results, setup_s)
    finally:
        harness.cleanup(environment)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
