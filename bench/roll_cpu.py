"""The CPU one roll costs the server's request thread, measured in this process.

Rolls go through Django's whole handler (every middleware, the view, the service, the shared
markup the broadcast carries) with the test client's handler, as signed-in phones of
``harness.build_tables`` post them, in ``--batches`` batches; the figure is the cheapest
batch's CPU time per roll (the others carry whatever else the machine did). There are no
sockets, no HTTP and no event loop here: this is the part of a roll that the app adds over the
bare baseline, and a change to it shows here in a minute, where ``load.py --sweep`` takes ten
and varies with the machine. Run it before and after a change, alternately.

    .venv/bin/python bench/roll_cpu.py                 # ms of CPU per roll
    .venv/bin/python bench/roll_cpu.py --profile 40    # and where it goes (cProfile, slower)
    .venv/bin/python bench/roll_cpu.py --profile 40 --sort tottime   # by each function's own time
    .venv/bin/python bench/roll_cpu.py --follow-ups    # a follow-up's CPU beside a roll's
    .venv/bin/python bench/roll_cpu.py --gap 50 --rolls 600   # each roll after 50 ms of other work
    .venv/bin/python bench/roll_cpu.py --gap 50 --idle --rolls 800   # after 50 ms of sleep
    .venv/bin/python bench/roll_cpu.py --gap 50 --idle --no-drawing  # the roll without its templates
    .venv/bin/python bench/roll_cpu.py --gap 50 --idle --floor       # Django's request alone

With ``--gap MS`` each roll comes after MS milliseconds of other work (a loop on the clock,
which keeps the core running and touches little memory) and is timed alone. A served roll at
20 a second comes after the event loop's sockets and whatever else ran, finds the caches
holding their work, and pays again for every line of code and data it touches. On the 2-vCPU
development machine a sixes roll took 2.5-3.1 ms back to back, 4.1-4.7 after 50 ms of busy
work and 5.6-7.7 after 50 ms of sleep (2026-12-06), the same code: what a change saves at 20
rolls a second is what it stops touching, which ``--gap`` shows and a warm loop hides. The
figure is the median roll's CPU, not the cheapest batch's. ``--idle`` sleeps through the gap
instead, as a served process does between two rolls at 20 a second: the figure that comes
closest to the request thread's CPU per roll in ``bench/mix.py``.

Two options take parts of the roll away, to show what a change to them could save at most:
``--no-drawing`` draws every template as an empty string (the answer, the broadcast's card);
``--floor`` posts each roll to a view that only reads and checks the member and the character,
through the same handler, middleware, session, user and rate limit: what every roll's request
costs before it rolls.

With ``--follow-ups`` each roll is followed by the follow-up its answer's card offers, as
``bench/mix.py`` takes it (Luck and the push in turn), and both are timed apart: the figures
are CPU per roll and per follow-up over the whole run, and their ratio (issue 18's target:
a follow-up at most 1.2 times a plain roll).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness

ROLL = "trait=skill-0&need=1"
# The random value a phone's script sends with a follow-up (``rolls.log.fairdice``).


def client_random() -> dict[str, str]:
    """A fresh value for each request, as the phone sends: a repeated one is the same request
    sent again, answered with its first result (rolls/log/resent.py)."""
    return {"client_random": secrets.token_hex(16)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rolls", type=int, default=3000, help="rolls measured (default 3000)")
    parser.add_argument("--batches", type=int, default=5, help="batches to take the cheapest of (default 5)")
    parser.add_argument(
        "--profile", type=int, metavar="N", help="then profile the rolls: the N costliest functions"
    )
    parser.add_argument(
        "--sort",
        default="cumulative",
        choices=("cumulative", "tottime"),
        help="the profile's order: time within each function and its calls, or its own (tottime)",
    )
    parser.add_argument(
        "--follow-ups", action="store_true", help="follow each roll up as its card offers; time both"
    )
    parser.add_argument(
        "--system",
        default="sixes",
        choices=("sixes", "doubles", "sets"),
        help="the tables' system (default sixes; --follow-ups takes sixes)",
    )
    parser.add_argument(
        "--gap",
        type=float,
        metavar="MS",
        help="before each roll, MS milliseconds of other work; the median roll's CPU",
    )
    parser.add_argument(
        "--idle",
        action="store_true",
        help="with --gap: sleep through the gap, as a served process idles between rolls",
    )
    parser.add_argument(
        "--no-drawing",
        action="store_true",
        help="every template the roll draws drawn as nothing: what the roll costs without them",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="post to a view that only reads the member and the character: Django's request alone",
    )
    args = parser.parse_args()
    if args.follow_ups and args.system != "sixes":
        parser.error("--follow-ups measures the sixes tables only")
    if args.gap is not None and (args.follow_ups or args.gap <= 0):
        parser.error("--gap takes a positive number of milliseconds, and not --follow-ups")
    if args.idle and args.gap is None:
        parser.error("--idle is how the --gap is spent: give --gap too")
    if args.floor and (args.follow_ups or args.no_drawing):
        parser.error("--floor draws and follows up nothing: not with --follow-ups or --no-drawing")

    environment = harness.prepare("embedded")
    try:
        if args.no_drawing:
            draw_nothing()
        if args.floor:
            post_to_floor()
        if args.follow_ups:
            roll, follow_up, taken = measure_follow_ups(args.rolls)
            print(f"{roll:.3f} ms of CPU per roll, {follow_up:.3f} per follow-up ({taken})")
            print(f"follow-up / roll: {follow_up / roll:.2f} (target 1.2)")
        elif args.gap is not None:
            pause = time.sleep if args.idle else _busy
            median = measure_after_gaps(
                args.rolls, args.gap / 1000, args.profile, args.system, args.sort, pause
            )
            spent = "of sleep" if args.idle else "of other work"
            print(f"{median:.3f} ms of CPU per {args.system} roll after {args.gap:g} ms {spent} (median)")
        else:
            print(
                f"{measure(args.rolls, args.batches, args.profile, args.system, args.sort):.3f} ms of CPU per"
                f" {args.system} roll (cheapest batch)"
            )
    finally:
        harness.cleanup(environment)


def measure_follow_ups(count: int) -> tuple[float, float, dict[str, int]]:
    """CPU per roll and per follow-up (ms) over ``count`` rolls, each followed up when its
    card offers what ``bench/mix.py`` takes, and how many of each follow-up were taken."""
    from bench.mix import choose_follow_up

    phones = _phones()
    spent = {"roll": 0.0, "follow-up": 0.0}
    done = {"roll": 0, "follow-up": 0}
    taken: dict[str, int] = {}

    def timed(kind: str, client: Any, path: str, *args: Any, **kwargs: Any) -> str:
        start = time.thread_time()
        response = client.post(path, *args, SERVER_NAME="127.0.0.1", **kwargs)
        spent[kind] += time.thread_time() - start
        done[kind] += 1
        if response.status_code != 200:
            raise SystemExit(f"a {kind} answered {response.status_code}: {response.content[:200]!r}")
        return response.content.decode()

    for n in range(len(phones) + count):
        if n == len(phones):  # each phone's first roll and follow-up warmed up: count from here
            spent = dict.fromkeys(spent, 0.0)
            done = dict.fromkeys(done, 0)
            taken.clear()
        client, url, data = phones[n % len(phones)]
        # A fresh one-time key with each roll, as a phone sends it (rolls/log/resent.py).
        sent = f"{data}&client_random={secrets.token_hex(16)}"
        answer = timed("roll", client, url, sent, content_type="application/x-www-form-urlencoded")
        chosen = choose_follow_up(answer, n)
        if chosen is None:
            continue
        action, path, data = chosen
        taken[action] = taken.get(action, 0) + 1
        timed("follow-up", client, path, {**data, **client_random()})
    return (
        spent["roll"] * 1000 / max(1, done["roll"]),
        spent["follow-up"] * 1000 / max(1, done["follow-up"]),
        taken,
    )


# The URL each phone posts its roll to: the roll's, or the floor's (``--floor``).
_roll_url_name = "rolls:roll-create"


def draw_nothing() -> None:
    """Draw every template as nothing (``--no-drawing``): the answer's partial, the broadcast's
    card, whatever the roll renders costs one call and gives an empty string. The figure is
    what the roll costs without its drawing: the most that any faster way of drawing it
    (another template engine, markup written in Python) could save."""
    from django.template.backends import django as django_backend
    from django.utils.safestring import SafeString

    from tabletop.serving import cycles

    def nothing(self: object, context: object = None, request: object = None) -> SafeString:
        return SafeString("")

    django_backend.Template.render = nothing  # type: ignore[method-assign]
    cycles.Template.render = nothing  # type: ignore[method-assign]


def post_to_floor() -> None:
    """Send each phone's roll to a view that does what the roll's request does before it
    rolls, and nothing more (``--floor``): Django's handler and every middleware, the session
    and the signed-in user, the rate limit's count, the member and the character read and
    checked as the roll's view reads them; no form, nothing written, nothing drawn. The figure
    is the part of a roll that no change to the roll itself can take away."""
    global _roll_url_name
    from django.conf import settings
    from django.http import HttpRequest, HttpResponse
    from django.urls import clear_url_caches, path
    from django.views.decorators.http import require_POST

    from tabletop import urls
    from tabletop.access import character_to_act_for, membership_or_404

    @require_POST
    def floor(request: HttpRequest, pk: int, character_id: int) -> HttpResponse:
        membership = membership_or_404(request.user, pk)
        return HttpResponse(str(character_to_act_for(membership, character_id).pk))

    # First in the list, as the roll's own pattern is (rolls/urls.py, included first).
    urls.urlpatterns.insert(0, path("bench-floor/<int:pk>/<int:character_id>/", floor, name="bench-floor"))
    settings.RATE_LIMITS["bench-floor"] = settings.RATE_LIMITS["rolls:roll-create"]
    clear_url_caches()
    _roll_url_name = "bench-floor"


def _phones(system: str = "sixes") -> list[tuple[Any, str, str]]:
    """Each phone of 100 tables of 6 as a test client, the URL of its roll and what it posts:
    its session and CSRF cookies, token header and htmx header, as load.py sends. No socket
    listens: the broadcast is rendered (prepare_entry) but not sent."""
    from urllib.parse import urlencode

    from django.test import Client
    from django.urls import reverse

    from rolls.live import publish

    publish._send = lambda *args, **kwargs: None  # type: ignore[assignment]
    phones = []
    for table in harness.build_tables(100, 6, systems=(system,)):
        data = ROLL if system == "sixes" else urlencode(table.roll_data, doseq=True)
        for phone in table.rollers:
            client = Client(enforce_csrf_checks=True, headers=phone.post_headers("127.0.0.1"))
            url = reverse(_roll_url_name, args=[table.campaign_id, phone.character_id])
            phones.append((client, url, data))
    return phones


def measure(
    count: int, batches: int, profile: int | None, system: str = "sixes", sort: str = "cumulative"
) -> float:
    phones = _phones(system)

    def roll(n: int) -> None:
        _post(phones, n)

    for n in range(len(phones)):  # warm up: each phone's first request, templates, queries
        roll(n)
    per_batch = max(1, count // batches)
    cheapest = float("inf")
    for b in range(batches):
        start = time.process_time()
        for n in range(per_batch):
            roll(b * per_batch + n)
        cheapest = min(cheapest, (time.process_time() - start) / per_batch)
    if profile:
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [roll(n) for n in range(per_batch)])
        pstats.Stats(profiler).sort_stats(sort).print_stats(profile)
    return cheapest * 1000


def _busy(seconds: float) -> None:
    """Keep the core running something else for ``seconds``: no idle pause, whose wake-up a
    virtual machine charges on top, and little memory touched, as a loop of the clock."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def measure_after_gaps(
    count: int,
    gap: float,
    profile: int | None,
    system: str,
    sort: str,
    pause: Callable[[float], None] = _busy,
) -> float:
    """The median roll's CPU (ms) when each comes after ``gap`` seconds of ``pause``."""
    phones = _phones(system)
    for n in range(len(phones)):  # warm up, as measure() does
        _post(phones, n)
    profiler = cProfile.Profile(time.thread_time) if profile else None
    spent = []
    for n in range(count):
        pause(gap)
        start = time.thread_time()
        if profiler is not None:
            profiler.enable()
        _post(phones, n)
        if profiler is not None:
            profiler.disable()
        spent.append(time.thread_time() - start)
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(sort).print_stats(profile)
    return statistics.median(spent) * 1000


def _post(phones: list[tuple[Any, str, str]], n: int) -> None:
    client, url, data = phones[n % len(phones)]
    # With the browser's random value for the dice, a fresh one each time, as the phone posts
    # (``static/js/table.js``): the roll path reads it and looks its key up (rolls/log/resent.py).
    response = client.post(
        url,
        f"{data}&client_random={secrets.token_hex(16)}",
        content_type="application/x-www-form-urlencoded",
        SERVER_NAME="127.0.0.1",
    )
    if response.status_code != 200:
        raise SystemExit(f"a roll answered {response.status_code}: {response.content[:200]!r}")


if __name__ == "__main__":
    main()
