"""A bench that plays like a table: plain rolls, follow-ups, the GM's NPC and secret rolls, with
every socket a table holds, the app and the bare baseline alternated in one run.

    .venv/bin/python bench/mix.py --tables 12 --rate 20 --seconds 10 --phases 3
    .venv/bin/python bench/mix.py --config production --workers 2 --tables 30 --rate 30 --phases 3
    .venv/bin/python bench/mix.py --systems doubles --kinds plain,follow-up --phases 2

The tables take ``--systems`` in turn (default: sixes, doubles and sets), each a GM and
``--sockets - 1`` players with a character, a play session open. The sockets are the ones a
table holds: each player's on their roll screen (``/ws/c/N/?character=C``), the GM's on the
console (``/ws/c/N/``, the session page) and the table display's (``/ws/display/TOKEN/``, the
link's token, no session); each says "since" as its page does. The baseline (``bench/baseline.py``) gets as many sockets per table.
Both servers run for the whole run; their tables' groups are numbered apart (the baseline's
from 1,000,000), so with Redis shared a group message never crosses from one to the other.

What is posted, as a phone posts it (htmx's headers, the page's CSRF token, 32 hex digits of
the browser's random value for the dice), each form's data as it starts (``rolls.play.formdata``,
checked by the forms and the engine when the tables are built):

- a **plain roll**: a player's roll form (``rolls:roll-create``), round-robin over every player
  of every table (a table first), as ``bench/load.py`` does;
- a **follow-up**: half a second after the answer, what the answer's card offers, read from
  its follow-up forms as a browser shows them: Luck when offered, else a push with the first
  unchecked Condition but Broken (which would take the kid out of play), alternately
  preferring one and the other (sixes); one drama die (doubles); the best bid, the first of
  the quick-bid buttons (sets). A roll whose card offers none of these is counted "none
  offered" (a sixes roll of all sixes; a sets roll without a set);
- an **NPC roll** and a **secret roll**: the GM's quick roll (``rolls:npc-roll``) from the
  console, openly or with "in secret" ticked, over the tables in turn.

Between phases the bench puts back what the follow-ups spent (``harness.refill``: Luck,
Conditions, Endurance), so every phase starts from the same sheets.

**Phases and rounds.** ``--phases N`` runs N rounds; each round runs, at ``--rate`` log
entries a second for ``--seconds``: the app's plain rolls and the baseline's rolls (one after
the other, the order swapped each round so drift weighs on both alike), then the app's other
``--kinds``: follow-up (rolls at half the rate, each followed up: about as many entries a
second as a plain phase), npc, secret, and table (the mix a table plays: of the GM's and the
players' actions, 8% NPC rolls, 4% secret ones, the rest players' rolls, 30% of them followed
up). Before each phase the server measured last works off its queue (``settle``).

**What an entry of each kind costs.** CPU is measured per process (the servers; in
``--config production`` also PostgreSQL's backends of the bench's database and the machine's
Redis), not per request, so each kind's cost comes from the phases: a plain, NPC or secret
phase holds one kind only, its CPU over its entries served. A follow-up needs a roll before
it, so its phase holds both: its rolls are charged at the plain phase's cost of the same
round, and the rest of its CPU is the follow-ups', over the follow-ups served:
``(CPU - rolls x plain) / follow-ups``. The table phase is the check of that linear model:
its CPU per entry is printed beside what the kinds' costs predict for its mix. Each figure
is the median over the rounds (with their range), and each ratio the median of the rounds'
own ratios (a round's phases are close in time, so the machine's other work weighs on both
sides of it alike). The follow-up's figure carries the error of the plain cost its rolls are
charged at, magnified (a phase holds about as many rolls as follow-ups): read its ratio from
five rounds or more of 20 s phases.

Each server's idle CPU (with its sockets open and nothing posted, from the quiet seconds
``settle`` finds) is printed with what it comes to per entry at the run's rate: the part of
each figure that a higher rate spreads thinner.

The report's first figures are those costs, then the ratios with PASS/FAIL for issue 18's
targets (a follow-up at most 1.2 times a plain roll; the app's plain roll at most 1.5 times
the baseline's), then every phase: entries served, refusals (non-200 answers, by what was
posted), none offered, deliveries lost (by socket: GM, player, display), duplicates,
latency p50/p99 (post to each socket's receipt), the servers' and the machine's CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import secrets
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness
from bench.harness import Listener, Phone, Server, Table
from bench.load import CPU_RATIO_TARGET, RESPONSE_SEQ, ROLL_DATA, fmt

KINDS = ("plain", "follow-up", "npc", "secret", "table")
SYSTEMS = ("sixes", "doubles", "sets")
FOLLOW_UP_RATIO_TARGET = 1.2  # a follow-up's CPU per entry against a plain roll's, same run
BASELINE_TABLES_FROM = 1_000_000  # the baseline's group names never meet the app's
READ_S = 0.5  # a player reads the dice, then taps a follow-up
# The table phase: shares of the actions (the rest are players' rolls), and of players' rolls
# followed up. Near the demo campaign's (rolls/demo.py), which is played the same way.
TABLE_NPC = 0.08
TABLE_SECRET = 0.04
TABLE_FOLLOW_UP = 0.3
# The follow-ups the bench takes, each in its system's terms; the first a card offers wins.
FOLLOW_UP_ORDER = ("luck", "push", "drama", "bid")
# sixes: checking Broken would take the kid out of play (SIX-22); the bench never does.
LAST_CONDITION = "Broken"
PUSH_TEXT = "pedals harder"


# -- what a card offers ---------------------------------------------------------------------------


@dataclass
class FoundForm:
    """One follow-up form of an answer's card, as a browser would submit it."""

    path: str
    fields: dict[str, list[str]] = field(default_factory=dict)  # hidden inputs, number inputs
    choices: dict[str, list[str]] = field(default_factory=dict)  # each select's option values
    text: list[str] = field(default_factory=list)  # text inputs (a push's description)

    @property
    def action(self) -> str:
        return (self.fields.get("action") or [""])[0]


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[FoundForm] = []
        self.current: FoundForm | None = None
        self.select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form" and found.get("hx-post"):
            self.current = FoundForm(found["hx-post"])
            return
        if self.current is None:
            return
        name = found.get("name", "")
        if tag == "input" and name:
            kind = found.get("type", "text")
            if kind == "hidden":
                self.current.fields.setdefault(name, []).append(found.get("value", ""))
            elif kind == "number":
                self.current.fields[name] = [found.get("value") or found.get("min") or "1"]
            elif kind == "text":
                self.current.text.append(name)
            # A checkbox is a die picker: the quick bids carry their dice as hidden inputs.
        elif tag == "select" and name:
            self.select = name
            self.current.choices[name] = []
        elif tag == "option" and self.select and found.get("value"):
            self.current.choices[self.select].append(found["value"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.select = None
        elif tag == "form" and self.current is not None:
            self.forms.append(self.current)
            self.current = None


def follow_up_forms(html: str) -> list[FoundForm]:
    """The follow-up forms (those htmx posts) of an answer, in the order the card shows them."""
    parser = _Forms()
    parser.feed(html)
    parser.close()
    return [form for form in parser.forms if form.action]


def choose_follow_up(html: str, turn: int = 0) -> tuple[str, str, dict[str, Any]] | None:
    """The follow-up a player of the bench takes on this answer, as (action, path, POST data),
    or None when the card offers none the bench takes. ``turn`` alternates Luck and the push
    when a card offers both."""
    offered: dict[str, FoundForm] = {}
    for form in follow_up_forms(html):
        offered.setdefault(form.action, form)  # a bid's first form is the best quick bid
    order = list(FOLLOW_UP_ORDER)
    if turn % 2:
        order[0], order[1] = order[1], order[0]
    for action in order:
        chosen = offered.get(action)
        if chosen is None:
            continue
        form = chosen
        data: dict[str, Any] = {
            name: values if len(values) > 1 else values[0] for name, values in form.fields.items()
        }
        usable = True
        for name, options in form.choices.items():
            options = [o for o in options if o != LAST_CONDITION] if name == "condition" else options
            if not options:
                usable = False  # nothing left to choose (only Broken to check)
                break
            data[name] = options[0]
        if not usable:
            continue
        if action == "bid" and "dice" not in data:
            continue  # the picker's own form: its dice are ticked by hand, the quick bids carry theirs
        for name in form.text:
            data[name] = PUSH_TEXT
        return action, form.path, data
    return None


# -- one server's phones --------------------------------------------------------------------------


@dataclass
class MixPhase:
    target: str
    kind: str
    round: int
    rate: float
    seconds: float
    entries: Counter[str] = field(default_factory=Counter)  # served, by what: roll, follow-up, npc, secret
    answers: Counter[tuple[str, int]] = field(default_factory=Counter)  # (what, status); 0: no answer
    none_offered: int = 0
    actions: Counter[str] = field(default_factory=Counter)  # follow-ups served, by action
    expected: int = 0
    delivered: int = 0
    lost_by_role: Counter[str] = field(default_factory=Counter)
    # Deliveries of an entry a socket had already (a later message that carries it again).
    duplicates_by_role: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    sent_s: float = 0.0  # how long the generator took to send the phase's actions

    @property
    def served(self) -> int:
        return sum(self.entries.values())

    @property
    def refused(self) -> int:
        return sum(n for (_, status), n in self.answers.items() if status != 200)

    @property
    def duplicates(self) -> int:
        return sum(self.duplicates_by_role.values())

    @property
    def lost(self) -> int:
        return self.expected - self.delivered

    @property
    def cpu_s(self) -> float:
        return self.cpu.get("server_s", 0.0) + self.cpu.get("services_s", 0.0)

    @property
    def cpu_ms_per_entry(self) -> float:
        return 1000 * self.cpu_s / self.served if self.served else math.nan

    def p(self, q: float) -> float:
        if q >= 99 and self.lost * 100 > self.expected:
            return math.inf  # a lost delivery has no latency: p99 is not flattered by it
        return harness.percentile(self.latencies, q)


class MixDriver:
    """The phones of every table, with their sockets open on one server (the app or the
    baseline), and the phases they play."""

    def __init__(self, name: str, server: Server, tables: list[Table], display: bool = True):
        self.name = name
        self.display = display
        self.app = name == "app"
        self.server = server
        self.tables = tables
        self.listeners: list[tuple[str, Listener]] = []  # (role, listener)
        self.by_table: dict[int, list[tuple[str, Listener]]] = defaultdict(list)
        width = max(len(t.rollers) for t in tables)
        # Round-robin over tables first, so each table gets rate / T entries a second.
        self.players = [
            (i, t.rollers[p]) for p in range(width) for i, t in enumerate(tables) if p < len(t.rollers)
        ]
        self.next_player = 0
        self.next_gm = 0
        self.clients: dict[int, Any] = {}
        self.turns: Counter[int] = Counter()  # follow-ups taken, per phone
        # CPU ms a second the server spends with its sockets open and nothing posted (timers,
        # heartbeats, idle collections), one figure per quiet second found by ``settle``.
        self.idle: list[float] = []

    def client_for(self, phone: Phone) -> Any:
        client = self.clients.get(id(phone))
        if client is None:
            client = self.clients[id(phone)] = harness.phone_client(self.server.base)
        return client

    def sockets(self, i: int, table: Table) -> list[tuple[str, Phone, str, int | None]]:
        """(role, phone, path, since) of each socket the table holds."""
        display = Phone(0, "", "", None, False)  # the display has a link, not a session
        found: list[tuple[str, Phone, str, int | None]] = []
        if not self.app:
            path = f"/ws/t/{BASELINE_TABLES_FROM + i}/"
            found += [("gm" if p.is_gm else "player", p, path, table.last_seq) for p in table.phones]
            return [*found, ("display", display, path, table.last_seq)] if self.display else found
        for phone in table.phones:
            if phone.is_gm:
                found.append(("gm", phone, f"/ws/c/{table.campaign_id}/", table.last_seq))
            else:
                path = f"/ws/c/{table.campaign_id}/?character={phone.character_id}"
                found.append(("player", phone, path, table.last_seq))
        # The display's page says "since" as every page does (static/js/live.js).
        if self.display:
            found.append(("display", display, f"/ws/display/{table.display_token}/", table.last_seq))
        return found

    async def connect(self, concurrency: int = 20) -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int, role: str, phone: Phone, path: str, since: int | None) -> None:
            listener = Listener(i, phone)
            async with gate:
                listener.socket = await harness.open_socket(self.server.base, path, phone, since)
            listener.task = asyncio.create_task(harness.listen(listener, listener.socket))
            self.listeners.append((role, listener))
            self.by_table[i].append((role, listener))

        await asyncio.gather(
            *(one(i, *socket) for i, table in enumerate(self.tables) for socket in self.sockets(i, table))
        )

    async def close(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self.clients.values()))
        for _, listener in self.listeners:
            await listener.socket.close()
        await asyncio.gather(*(lst.task for _, lst in self.listeners if lst.task), return_exceptions=True)

    def plan(self, kind: str, rate: float, seconds: float, seed: int) -> tuple[float, list[str]]:
        """The actions of a phase and the rate they are sent at: ``roll``, ``roll+follow-up``,
        ``npc`` or ``secret``, as many entries a second as ``rate`` (about, for follow-ups)."""
        if kind == "plain":
            return rate, ["roll"] * max(1, round(rate * seconds))
        if kind == "follow-up":
            return rate / 2, ["roll+follow-up"] * max(1, round(rate / 2 * seconds))
        if kind in ("npc", "secret"):
            return rate, [kind] * max(1, round(rate * seconds))
        rng = random.Random(seed)  # noqa: S311 -- the mix's order, the same in every run
        players = 1 - TABLE_NPC - TABLE_SECRET
        per_action = 1 + players * TABLE_FOLLOW_UP  # entries per action, about
        actions = []
        for _ in range(max(1, round(rate / per_action * seconds))):
            r = rng.random()
            if r < TABLE_NPC:
                actions.append("npc")
            elif r < TABLE_NPC + TABLE_SECRET:
                actions.append("secret")
            else:
                actions.append("roll+follow-up" if rng.random() < TABLE_FOLLOW_UP else "roll")
        return rate / per_action, actions

    async def phase(
        self, kind: str, rate: float, seconds: float, round_no: int, drain: float = 10.0
    ) -> MixPhase:
        import httpx

        result = MixPhase(self.name, kind, round_no, rate, seconds)
        posts: list[tuple[int, int, float]] = []  # (table, seq, sent at)
        base = self.server.base
        duplicates_before = {id(lst): lst.duplicates for _, lst in self.listeners}

        async def post(what: str, i: int, phone: Phone, path: str, data: dict[str, Any]) -> str | None:
            """The answer's text when it served an entry (its seq is then expected everywhere)."""
            if self.app:
                data = {**data, "client_random": secrets.token_hex(16)}
            sent = time.perf_counter()
            try:
                response = await self.client_for(phone).post(
                    path, data=data, headers=phone.post_headers(base)
                )
            except httpx.HTTPError:
                result.answers[(what, 0)] += 1
                return None
            result.answers[(what, response.status_code)] += 1
            if response.status_code != 200 or not (match := RESPONSE_SEQ.search(response.text)):
                return None
            result.entries[what] += 1
            posts.append((i, int(match.group(1)), sent))
            return str(response.text)

        async def roll(follow: bool) -> None:
            i, phone = self.players[self.next_player % len(self.players)]
            self.next_player += 1
            table = self.tables[i]
            if self.app:
                path = f"/c/{table.campaign_id}/characters/{phone.character_id}/roll/"
            else:
                path = f"/t/{BASELINE_TABLES_FROM + i}/roll/"
            answer = await post("roll", i, phone, path, table.roll_data or ROLL_DATA)
            if not follow or answer is None:
                return
            chosen = choose_follow_up(answer, self.turns[id(phone)])
            if chosen is None:
                result.none_offered += 1
                return
            action, follow_path, data = chosen
            self.turns[id(phone)] += 1
            await asyncio.sleep(READ_S)
            if await post("follow-up", i, phone, follow_path, data) is not None:
                result.actions[action] += 1

        async def npc(secret: bool) -> None:
            i = self.next_gm % len(self.tables)
            self.next_gm += 1
            table = self.tables[i]
            data = {**table.npc_data, "name": "Goon", "intent": "Swings at the kids"}
            if secret:
                data["secret"] = "on"
            await post("secret" if secret else "npc", i, table.gm, f"/c/{table.campaign_id}/npc-roll/", data)

        send_rate, actions = self.plan(kind, rate, seconds, round_no)
        tasks = []
        with harness.cpu_meter(self.server) as cpu:
            start = time.perf_counter()
            for n, action in enumerate(actions):
                delay = start + n / send_rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                if action in ("npc", "secret"):
                    tasks.append(asyncio.create_task(npc(action == "secret")))
                else:
                    tasks.append(asyncio.create_task(roll(action == "roll+follow-up")))
            result.sent_s = time.perf_counter() - start
            await asyncio.gather(*tasks)
            deadline = time.perf_counter() + drain
            while time.perf_counter() < deadline:
                if all(seq in lst.first_seen for t, seq, _ in posts for _, lst in self.by_table[t]):
                    break
                await asyncio.sleep(0.05)
        result.cpu = dict(cpu)
        for t, seq, sent in posts:
            for role, listener in self.by_table[t]:
                result.expected += 1
                seen = listener.first_seen.get(seq)
                if seen is None:
                    result.lost_by_role[role] += 1
                else:
                    result.delivered += 1
                    result.latencies.append((seen - sent) * 1000)
        for role, listener in self.listeners:
            result.duplicates_by_role[role] += listener.duplicates - duplicates_before[id(listener)]
        return result

    async def settle(self, limit: float = 60.0) -> None:
        """Wait until the server has worked off what it had queued: a second in which it used
        less than a tenth of a core (at most ``limit`` seconds)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            before = self.server.cpu_seconds()
            started = time.monotonic()
            await asyncio.sleep(1)
            used = self.server.cpu_seconds() - before
            if used < 0.1:
                self.idle.append(1000 * used / (time.monotonic() - started))
                return


# -- the run ---------------------------------------------------------------------------------------


async def play(app: MixDriver, baseline: MixDriver | None, args: argparse.Namespace) -> list[MixPhase]:
    drivers = [app] + ([baseline] if baseline else [])
    t0 = time.perf_counter()
    for driver in drivers:
        await driver.connect()
    print(
        f"  {sum(len(d.listeners) for d in drivers)} sockets connected in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    await asyncio.sleep(3)  # the presence updates of the connect storm settle
    if args.warmup > 0:  # templates, queries, connections: the first of each is not measured
        await app.phase(
            "table" if len(args.kinds) > 1 else args.kinds[0], args.rate, args.warmup, -1, drain=5
        )
        if baseline:
            await baseline.phase("plain", args.rate, args.warmup, -1, drain=5)
    phases: list[MixPhase] = []

    async def run(driver: MixDriver, kind: str, round_no: int) -> None:
        for each in drivers:
            await each.settle()
        if driver.app:
            await asyncio.to_thread(refill, driver.tables)
            if args.profile and not phases:
                # The profile counts from the first measured phase: not the connect storm, the
                # warm-up or the first use of each compiled query.
                (Path(driver.server.env["BENCH_PROFILE"]) / "reset").touch()
        phase = await driver.phase(kind, args.rate, args.seconds, round_no)
        phases.append(phase)
        print(
            f"  round {round_no + 1} {driver.name:8} {kind:9}  {phase.served:5} entries"
            f"  {fmt(phase.cpu_ms_per_entry):>6} ms CPU each  p99 {fmt(phase.p(99)):>7} ms"
            f"  refused {phase.refused}  lost {phase.lost}  other processes {phase.cpu.get('other', 0):.0f}%",
            flush=True,
        )

    for round_no in range(args.phases):
        pair: list[tuple[MixDriver, str]] = [(app, "plain")] if "plain" in args.kinds else []
        if baseline:
            pair.append((baseline, "plain"))
        for driver, kind in pair if round_no % 2 == 0 else reversed(pair):
            await run(driver, kind, round_no)
        for kind in args.kinds:
            if kind != "plain":
                await run(app, kind, round_no)
    for driver in drivers:
        await driver.close()
    args.idle = {driver.name: driver.idle for driver in drivers}
    return phases


def refill(tables: list[Table]) -> None:
    """``harness.refill``, then this thread's connection closed: in production a backend of the
    bench's own would count as the app's PostgreSQL CPU."""
    from django.db import connections

    try:
        harness.refill(tables)
    finally:
        connections.close_all()


def costs(phases: list[MixPhase]) -> dict[str, list[float]]:
    """CPU ms per entry of each kind, one figure a round (see the module's docstring): the
    follow-up's from its phase, its rolls charged at the round's plain cost."""
    found: dict[str, list[float]] = defaultdict(list)
    by_round: dict[int, dict[tuple[str, str], MixPhase]] = defaultdict(dict)
    for phase in phases:
        by_round[phase.round][(phase.target, phase.kind)] = phase
    for each in by_round.values():
        plain = each.get(("app", "plain"))
        for (target, kind), phase in each.items():
            if kind == "follow-up":
                if plain is None or not phase.entries["follow-up"] or math.isnan(plain.cpu_ms_per_entry):
                    continue
                rolls_ms = phase.entries["roll"] * plain.cpu_ms_per_entry
                found["app follow-up"].append((1000 * phase.cpu_s - rolls_ms) / phase.entries["follow-up"])
            elif not math.isnan(phase.cpu_ms_per_entry):
                found[f"{target} {kind}"].append(phase.cpu_ms_per_entry)
    return found


def thread_costs(phases: list[MixPhase]) -> dict[str, tuple[list[float], list[float]]]:
    """CPU ms per plain roll of the servers' event loops (their main threads) and of their
    other threads (the app's request threads and collector; the baseline's thread per
    request), one figure a round each: where the app's extra CPU over the baseline's is spent."""
    found: dict[str, tuple[list[float], list[float]]] = {}
    for phase in phases:
        if phase.kind != "plain" or not phase.served:
            continue
        loop, rest = found.setdefault(f"{phase.target} plain", ([], []))
        loop_s = phase.cpu.get("loop_s", 0.0)
        loop.append(1000 * loop_s / phase.served)
        rest.append(1000 * (phase.cpu.get("server_s", 0.0) - loop_s) / phase.served)
    return found


def ratios(phases: list[MixPhase]) -> dict[str, list[float]]:
    """Each round's follow-up/plain and app/baseline ratios."""
    per_round = defaultdict(list)
    for phase in phases:
        per_round[phase.round].append(phase)
    found: dict[str, list[float]] = defaultdict(list)
    for round_phases in per_round.values():
        figures = {key: values[0] for key, values in costs(round_phases).items()}
        plain = figures.get("app plain")
        if plain and "app follow-up" in figures:
            found["follow-up"].append(figures["app follow-up"] / plain)
        if plain and "baseline plain" in figures:
            found["baseline"].append(plain / figures["baseline plain"])
    return found


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"


def report(
    args: argparse.Namespace, phases: list[MixPhase], tables: list[Table], notes: dict[str, Any]
) -> bool:
    systems = Counter(t.system for t in tables)
    print()
    print(
        f"Tabletop table mix: {args.config}, {args.workers} worker(s), {args.tables} tables "
        f"({', '.join(f'{s} {n}' for s, n in systems.items())}) x ({args.sockets} phones"
        f"{' + a display' if args.display else ''}) = {args.tables * (args.sockets + args.display)} sockets a server; {args.rate:g} entries/s, "
        f"{args.phases} round(s) of {args.seconds:g} s phases"
    )
    print(
        f"  load average {notes['load_start']} at the start, {notes['load_end']} at the end;"
        f" setup {notes['setup_s']:.0f} s, run {notes['run_s']:.0f} s"
    )
    found = costs(phases)
    production = args.config == "production"
    print(
        "  CPU ms per log entry, median of the rounds (min-max)"
        + (": servers + PostgreSQL + Redis" if production else ": the servers")
    )
    labels = [
        ("app plain", "plain roll"),
        ("app follow-up", "follow-up (its rolls at the plain cost)"),
        ("app npc", "NPC roll (GM, console)"),
        ("app secret", "secret roll (GM, console)"),
        ("app table", "table mix, as played"),
        ("baseline plain", "baseline roll"),
    ]
    for key, label in labels:
        if key in found:
            print(f"    {label:40} {spread(found[key]):>22}")
    split = thread_costs(phases)
    for key, label in (("app plain", "plain roll"), ("baseline plain", "baseline roll")):
        if key in split:
            loop, rest = split[key]
            print(f"      {label}: its event loop {spread(loop)}, its other threads {spread(rest)}")
    table_phases = [p for p in phases if p.kind == "table"]
    if table_phases and "app plain" in found:
        median = {key: statistics.median(values) for key, values in found.items()}
        per = {"roll": "app plain", "follow-up": "app follow-up", "npc": "app npc", "secret": "app secret"}
        entries: Counter[str] = Counter()
        for phase in table_phases:
            entries.update(phase.entries)
        if all(per[what] in median for what in entries):
            predicted = sum(n * median[per[what]] for what, n in entries.items()) / max(
                sum(entries.values()), 1
            )
            mix = ", ".join(f"{what} {n}" for what, n in entries.most_common())
            print(f"    {'table mix, from the kinds above':40} {fmt(predicted):>22}  ({mix})")
    for name, idle in notes["idle"].items():
        if idle:
            per_entry = statistics.median(idle) / args.rate
            print(
                f"    of each, {name}'s idle CPU at this rate{'':12} {fmt(per_entry):>10}"
                f"  ({fmt(statistics.median(idle))} ms a second with nothing posted, median of {len(idle)})"
            )
    checks: list[tuple[str, bool]] = []
    found_ratios = ratios(phases)
    if found_ratios.get("follow-up"):
        value = statistics.median(found_ratios["follow-up"])
        each = " ".join(f"{r:.2f}" for r in found_ratios["follow-up"])
        print(f"  follow-up / plain roll, CPU per entry: {value:.2f} (rounds: {each})")
        checks.append(
            (
                f"a follow-up costs at most {FOLLOW_UP_RATIO_TARGET:g}x a plain roll ({value:.2f})",
                value <= FOLLOW_UP_RATIO_TARGET,
            )
        )
    if found_ratios.get("baseline"):
        value = statistics.median(found_ratios["baseline"])
        each = " ".join(f"{r:.2f}" for r in found_ratios["baseline"])
        print(f"  app / baseline, CPU per plain roll: {value:.2f} (rounds: {each})")
        checks.append(
            (
                f"the app's plain roll at most {CPU_RATIO_TARGET:g}x the baseline's ({value:.2f})",
                value <= CPU_RATIO_TARGET,
            )
        )
    print()
    header = (
        f"  {'round':>5} {'target':8} {'kind':9} {'entries':>7} {'/s':>5} {'CPU ms':>7} {'PG+R':>5}"
        f" {'refused':>7} {'none':>4} {'lost':>10} {'dup':>3} {'p50':>6} {'p99':>7} {'srv%':>5} {'oth%':>5}"
    )
    print(header)
    for p in phases:
        lost = f"{p.lost}" + (f" {dict(p.lost_by_role)}" if p.lost else "")
        print(
            f"  {p.round + 1:>5} {p.target:8} {p.kind:9} {p.served:>7} {p.served / max(p.sent_s, 1e-9):>5.1f}"
            f" {fmt(p.cpu_ms_per_entry):>7} {fmt(1000 * p.cpu.get('services_s', 0) / max(p.served, 1)):>5}"
            f" {p.refused:>7} {p.none_offered:>4} {lost:>10} {p.duplicates:>3} {fmt(p.p(50)):>6}"
            f" {fmt(p.p(99)):>7} {p.cpu.get('server', 0):>5.0f} {p.cpu.get('other', 0):>5.0f}"
        )
    refusals: Counter[tuple[str, int]] = Counter()
    actions: Counter[str] = Counter()
    duplicates: Counter[tuple[str, str]] = Counter()
    for p in phases:
        refusals.update({key: n for key, n in p.answers.items() if key[1] != 200})
        actions.update(p.actions)
        duplicates.update({(p.kind, role): n for role, n in p.duplicates_by_role.items() if n})
    if actions:
        print(f"  follow-ups served, by action: {dict(actions)}")
    if duplicates:
        print(f"  duplicates, by (phase, socket): {dict(duplicates)}")
    if refusals:
        print(f"  refused, by (what, status; 0: no answer): {dict(refusals)}")
    for name, errors in notes["errors"].items():
        if errors:
            print(f"  {name} server log: {len(errors)} errors, {errors[:3]}")
    for label, ok in checks:
        print(f"  target: {label}: {'PASS' if ok else 'FAIL'}")
    if not checks:
        print("  (no ratio: run --kinds with plain and follow-up, and the baseline)")
    return all(ok for _, ok in checks)


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument(
        "--sockets", type=int, default=6, help="phones per table (a GM and players); a display besides"
    )
    parser.add_argument(
        "--rate", type=float, default=20, help="log entries a second over all tables, in every phase"
    )
    parser.add_argument("--seconds", type=float, default=10, help="length of each phase")
    parser.add_argument(
        "--phases", type=int, default=3, help="rounds, each a phase of every kind and the baseline's"
    )
    parser.add_argument("--warmup", type=float, default=3, help="seconds of the mix before measuring")
    parser.add_argument(
        "--systems", default=",".join(SYSTEMS), help=f"the tables' systems, in turn (of {', '.join(SYSTEMS)})"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help=f"the app's phases in a round (of {', '.join(KINDS)})"
    )
    harness.add_server_arguments(parser)
    parser.add_argument(
        "--baseline",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="alternate with the bare Channels baseline (bench/baseline.py)",
    )
    parser.add_argument(
        "--display",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a table display's socket per table (and one more baseline socket)",
    )
    parser.add_argument(
        "--profile", metavar="DIR", help="run bench/sampler.py in the app's server, write to DIR"
    )
    parser.add_argument(
        "--profile-mode",
        choices=["samples", "sections"],
        default="samples",
        help="stack samples, or the CPU time of bench/sampler.py's SECTIONS (and BENCH_SECTIONS)",
    )
    args = parser.parse_args(argv)
    harness.check_server_arguments(parser, args)
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if unknown := [s for s in args.systems if s not in SYSTEMS]:
        parser.error(f"--systems: the bench plays {', '.join(SYSTEMS)}, not {', '.join(unknown)}")
    if unknown := [k for k in args.kinds if k not in KINDS]:
        parser.error(f"--kinds: one of {', '.join(KINDS)}, not {', '.join(unknown)}")
    if not args.kinds or args.phases < 1:
        parser.error("at least one kind and one round")

    notes: dict[str, Any] = {"load_start": load_average()}
    environment = harness.prepare(args.config)
    try:
        t0 = time.perf_counter()
        tables = harness.build_tables(args.tables, args.sockets, args.systems)
        notes["setup_s"] = time.perf_counter() - t0
        from django.db import connections

        connections.close_all()
        layer = {"BENCH_CHANNEL_LAYER": harness.channel_layer_backend()}
        t0 = time.perf_counter()
        with Server(
            environment,
            "tabletop.asgi:application",
            args.workers,
            profile=args.profile,
            profile_mode=args.profile_mode,
        ) as app_server:
            if args.baseline:
                with Server(
                    environment, "bench.baseline:application", args.workers, extra_env=layer
                ) as base_server:
                    phases = asyncio.run(
                        play(
                            MixDriver("app", app_server, tables, args.display),
                            MixDriver("baseline", base_server, tables, args.display),
                            args,
                        )
                    )
                    notes["errors"] = {"app": app_server.errors(), "baseline": base_server.errors()}
            else:
                phases = asyncio.run(play(MixDriver("app", app_server, tables, args.display), None, args))
                notes["errors"] = {"app": app_server.errors()}
        notes["run_s"] = time.perf_counter() - t0
        notes["idle"] = args.idle
        notes["load_end"] = load_average()
        ok = report(args, phases, tables, notes)
    finally:
        harness.cleanup(environment)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
