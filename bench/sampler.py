"""A small sampling profiler for the server processes the bench starts (py-spy is not part
of the project): a thread that looks at every other thread's Python stack a few hundred times
a second and, at exit, writes how often each function was running.

``bench/load.py --profile DIR`` starts each server with ``BENCH_PROFILE=DIR``; the harness
imports bench/profiled.py in the server process. Each process writes (every five seconds)
``DIR/profile-<pid>.txt``: the functions seen most often, by "self" (the innermost frame) and
"total" (anywhere on the stack), in percent of the samples in which some thread was busy.
A thread waiting for the GIL looks busy too, so read the figures as where the time goes, not
as exact CPU shares.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType

# Innermost frames of a thread that is waiting, not working.
IDLE = {
    "wait",
    "_wait_for_tstate_lock",
    "select",
    "poll",
    "_worker",
    "get",
    "run_forever",
    "run_until_complete",
    "_run_once",
    "sleep",
    "accept",
    "serve_forever",
    "recv",
    "read",
}


def _label(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    for marker in ("site-packages/", "/work/main/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{code.co_name} ({path}:{code.co_firstlineno})"


def start(directory: str, interval: float = 0.002) -> None:
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    me = threading.get_ident()
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    busy = [0]
    samples = [0]
    stop = threading.Event()

    def write() -> None:
        n = max(busy[0], 1)
        lines = [f"pid {os.getpid()}: {samples[0]} samples, {busy[0]} busy thread-samples", "", "self:"]
        lines += [f"{100 * c / n:6.2f}%  {label}" for label, c in own.most_common(60)]
        lines += ["", "total:"]
        lines += [f"{100 * c / n:6.2f}%  {label}" for label, c in total.most_common(120)]
        (out / f"profile-{os.getpid()}.txt").write_text("\n".join(lines) + "\n")

    marker = out / "reset"
    seen_marker = [marker.stat().st_mtime if marker.exists() else 0.0]

    def reset_when_told() -> None:
        """Touching DIR/reset starts the counts afresh (load.py does, before measuring)."""
        mtime = marker.stat().st_mtime if marker.exists() else 0.0
        if mtime != seen_marker[0]:
            seen_marker[0] = mtime
            own.clear()
            total.clear()
            busy[0] = samples[0] = 0

    def run() -> None:
        written = checked = time.monotonic()
        while not stop.is_set():
            time.sleep(interval)
            now = time.monotonic()
            if now - checked > 0.5:
                checked = now
                reset_when_told()
            if now - written > 5:
                # uvicorn re-raises SIGTERM after its shutdown, so atexit may never run.
                written = now
                write()
            samples[0] += 1
            for ident, frame in sys._current_frames().items():
                if ident == me or frame is None:
                    continue
                if frame.f_code.co_name in IDLE or frame.f_code.co_filename.endswith("asyncio/runners.py"):
                    continue  # the event loop's own wait (uvloop's is in C, below runners.py)
                busy[0] += 1
                own[_label(frame)] += 1
                seen = set()
                f: FrameType | None = frame
                while f is not None:
                    label = _label(f)
                    if label not in seen:
                        total[label] += 1
                        seen.add(label)
                    f = f.f_back

    thread = threading.Thread(target=run, name="bench-sampler", daemon=True)
    thread.start()
    me = thread.ident or me

    atexit.register(write)


# Sync functions whose CPU time ``start_sections`` adds up (in the thread that runs them).
SECTIONS = [
    "django.core.handlers.base.BaseHandler.get_response",  # a request's middleware and view
    "rolls.views.play.roll_create",  # the roll view, within it
    "rolls.play.services.roll_create",  # the roll's transaction, with its on-commit work
    "rolls.live.publish.publish",  # on commit: render the shared card, group-send
    "rolls.live.feed.prepare_entry",  # the writer's render of the shared card
    "tabletop.access.membership_or_404",
    "tabletop.access.character_to_act_for",
    "rolls.sight.cards.latest_card",
    "django.shortcuts.render",
    "tabletop.sessions.SessionStore.load",
    "rolls.live.feed.render_since",
    "rolls.live.feed.prepare_shared",
    "rolls.live.feed.shared_since",
    "rolls.live.consumers._render_presence",
    "django.db.backends.base.base.BaseDatabaseWrapper.connect",
    "django.db.backends.base.base.BaseDatabaseWrapper.close",
]


def start_sections(directory: str) -> None:
    """CPU time (``time.thread_time``) spent in each of ``SECTIONS``, and in the event loop's
    thread, written as ``DIR/sections-<pid>.txt`` every five seconds. Cheap: measure at the
    rate you care about."""
    import functools
    import importlib

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    spent: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    local = threading.local()
    marker = out / "reset"
    state = {"marker": marker.stat().st_mtime if marker.exists() else 0.0, "since": time.monotonic()}
    main_tid = threading.get_native_id()

    def thread_cpu(tid: int) -> float:
        try:
            with open(f"/proc/self/task/{tid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            return 0.0

    def process_cpu() -> float:
        times = os.times()
        return times.user + times.system

    def db_threads() -> list[int]:
        from asgiref.sync import SyncToAsync

        threads = getattr(SyncToAsync.single_thread_executor, "_threads", ())
        return [t.native_id for t in threads if t.native_id is not None]

    state["loop"] = thread_cpu(main_tid)
    state["process"] = process_cpu()
    state["db"] = 0.0

    def wrap(path: str) -> None:
        module_path, _, name = path.rpartition(".")
        owner: object
        try:
            owner = importlib.import_module(module_path)
        except ImportError:
            module_path, _, class_name = module_path.rpartition(".")
            owner = getattr(importlib.import_module(module_path), class_name)
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: object, **kwargs: object) -> object:
            depth = getattr(local, "depth", {})
            local.depth = depth
            if depth.get(path):
                return original(*args, **kwargs)  # count a recursive call once
            depth[path] = True
            start = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                depth[path] = False
                spent[path] += time.thread_time() - start
                calls[path] += 1

        setattr(owner, name, timed)
        # Also where it was imported by name (``from rolls.live.feed import render_since``).
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith(("rolls", "tabletop", "django")):
                for attribute, value in list(vars(module).items()):
                    if value is original:
                        setattr(module, attribute, timed)

    # More, for one run: BENCH_SECTIONS="rolls.sight.panels.gm_panel,rolls.sight.cards.build_card".
    extra = [path for path in os.environ.get("BENCH_SECTIONS", "").split(",") if path]
    sections = [*SECTIONS, *(path for path in extra if path not in SECTIONS)]
    if os.environ.get("BENCH_PROFILE_TARGET") == "bench.baseline":
        # The baseline has none of the app's modules: its sections are Django's own.
        sections = [path for path in sections if path.startswith("django.") and ".sessions." not in path]
    for path in sections:
        wrap(path)

    def write() -> None:
        mtime = marker.stat().st_mtime if marker.exists() else 0.0
        if mtime != state["marker"]:
            state.update(
                marker=mtime,
                since=time.monotonic(),
                loop=thread_cpu(main_tid),
                process=process_cpu(),
                db=sum(thread_cpu(tid) for tid in db_threads()),
            )
            spent.clear()
            calls.clear()
            return
        elapsed = max(time.monotonic() - state["since"], 1e-9)
        process = process_cpu() - state["process"]
        loop = thread_cpu(main_tid) - state["loop"]
        db = sum(thread_cpu(tid) for tid in db_threads()) - state["db"]
        lines = [
            f"pid {os.getpid()}, {elapsed:.0f} s: process CPU {process:.2f} s ({100 * process / elapsed:.0f}%):"
            f" event loop thread {loop:.2f} s, sockets' database thread {db:.2f} s,"
            f" other threads (HTTP requests) {process - loop - db:.2f} s",
            "",
            f"{'CPU s':>8} {'calls':>8} {'ms/call':>8}  section",
        ]
        for path in sections:
            n = calls[path]
            lines.append(f"{spent[path]:8.2f} {n:8d} {1000 * spent[path] / max(n, 1):8.2f}  {path}")
        (out / f"sections-{os.getpid()}.txt").write_text("\n".join(lines) + "\n")

    def writer() -> None:
        # The marker is looked at twice a second, so that the counts start with the run that
        # touched it, not up to five seconds into it.
        ticks = 0
        while True:
            time.sleep(0.5)
            ticks += 1
            mtime = marker.stat().st_mtime if marker.exists() else 0.0
            if mtime != state["marker"] or ticks % 10 == 0:
                write()

    threading.Thread(target=writer, name="bench-sections-writer", daemon=True).start()
