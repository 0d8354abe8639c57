"""Real server processes for the tests of the production configuration: uvicorn workers that
share this test run's database (PostgreSQL) and channel layer (Redis)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url() -> str:
    """The URL of the database this test run uses (the test database, not the real one)."""
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"
    )


def database_env() -> dict[str, str]:
    """What points a server process at this test run's database: PostgreSQL by URL (with the
    Redis layer the run uses), or the embedded default's SQLite file (one process)."""
    if connection.vendor == "postgresql":
        return {"DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL}
    return {"SQLITE_PATH": str(connection.settings_dict["NAME"])}


# uvicorn with the options ``manage.py serve`` gives it (websocket implementation and all).
SERVER = """
import sys, uvicorn
import tabletop.asgi
from tabletop.management.commands.serve import uvicorn_options
uvicorn.run("tabletop.asgi:application", **uvicorn_options(host="127.0.0.1", port=int(sys.argv[1]), workers=1))
"""


@contextmanager
def server_process(port: int, tmp: Path, extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """A uvicorn process serving the app on ``port``; yields its base URL. ``extra_env``
    overrides the rest (a Redis or a database address of the test's own, say)."""
    env = {
        **os.environ,
        **database_env(),
        "SECRET_KEY": settings.SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "TABLETOP_DATA_DIR": str(tmp),
        "TABLETOP_NO_BOOTSTRAP": "1",
        **(extra_env or {}),
    }
    log = open(tmp / f"server-{port}.log", "w")  # closed in the finally below
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError as error:
                if process.poll() is not None or time.monotonic() > deadline:
                    log_text = (tmp / f"server-{port}.log").read_text()
                    raise RuntimeError(f"server on {port} did not start: {log_text}") from error
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
