"""An app with bench/sampler.py running in its process: ``bench.profiled:application`` serves
the module named by ``BENCH_PROFILE_TARGET`` (``tabletop.asgi`` or ``bench.baseline``) and
writes its profile to ``BENCH_PROFILE``: stack samples, or with ``BENCH_PROFILE_MODE=sections``
the CPU time of a few named functions (see bench/sampler.py)."""

from __future__ import annotations

import importlib
import os

from bench import sampler

target = importlib.import_module(os.environ.get("BENCH_PROFILE_TARGET", "tabletop.asgi"))
if os.environ.get("BENCH_PROFILE_MODE") == "sections":
    sampler.start_sections(os.environ["BENCH_PROFILE"])
else:
    sampler.start(os.environ["BENCH_PROFILE"])
application = target.application
