"""An app whose process records every garbage collection it pauses for:
``bench.gc_timed:application`` serves the app named by ``BENCH_GC_TARGET`` and, once a second,
writes ``BENCH_GC_PAUSES/gc-<pid>.txt``: one line per collection since the process started,
``<monotonic start s> <pause ms> <generation> <objects freed> <CPU ms>``: the pause as the
clock saw it, and the CPU the collection took (on a machine shared with other work the
clock's figure includes time the process waited for a core; the CPU figure does not).

A collection holds the GIL: every thread of the process, the event loop and so every socket,
waits for it. ``time.monotonic`` is the machine's clock (CLOCK_MONOTONIC), the same in the
load generator, which keeps the collections that fall inside its measured run
(``harness.read_gc_pauses``); the load generator never imports this module, which
imports the app. Two ``perf_counter`` calls per collection: nothing next to the collection.

A serving process freezes what survives each collection (tabletop/serving/gc.py), so a cycle
that became garbage after that is found only by a sweep, not by the collections timed here.
``SIGUSR1`` asks for a sweep now (``harness.Server.sweep_gc``, after the measured run) and
writes what it freed to ``BENCH_GC_PAUSES/sweep-<pid>.txt``: with it, "objects in cycles per
roll" counts every cycle the run left, frozen or not.
"""

from __future__ import annotations

import gc
import importlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any


def record(directory: Path) -> None:
    pauses: list[tuple[float, float, int, int, float]] = []
    started = [0.0, 0.0, 0.0]  # monotonic, perf_counter, thread_time

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[:] = time.monotonic(), time.perf_counter(), time.thread_time()
        else:
            ms = (time.perf_counter() - started[1]) * 1000
            cpu_ms = (time.thread_time() - started[2]) * 1000
            pauses.append((started[0], ms, info["generation"], info["collected"], cpu_ms))

    def write() -> None:
        path = directory / f"gc-{os.getpid()}.txt"
        while True:
            time.sleep(1.0)
            lines = [f"{at:.6f} {ms:.3f} {gen} {freed} {cpu:.3f}" for at, ms, gen, freed, cpu in list(pauses)]
            temporary = path.with_suffix(".tmp")
            temporary.write_text("\n".join(lines) + "\n")
            temporary.replace(path)

    def sweep(signum: int, frame: Any) -> None:
        started = time.perf_counter()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        ms = (time.perf_counter() - started) * 1000
        # Written aside and renamed, as the pauses are: the bench reads it as soon as it exists
        # (an empty file, read between the open and the write, stopped a run).
        path = directory / f"sweep-{os.getpid()}.txt"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(f"{freed} {ms:.3f}\n")
        temporary.replace(path)

    directory.mkdir(parents=True, exist_ok=True)
    gc.callbacks.append(on_gc)
    signal.signal(signal.SIGUSR1, sweep)
    threading.Thread(target=write, name="gc-pauses", daemon=True).start()


if os.environ.get("BENCH_GC_PAUSES"):
    record(Path(os.environ["BENCH_GC_PAUSES"]))
application = importlib.import_module(
    os.environ.get("BENCH_GC_TARGET", "tabletop.asgi").split(":")[0]
).application
