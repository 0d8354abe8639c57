"""Hardening: deploy checks, the Content-Security-Policy, and where the dice come from."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from rolls.log import fairdice, randomness
from rolls.systems.base import roll_dice

ROOT = Path(__file__).resolve().parent.parent


def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PUBLIC_URL": "https://dice.example.org",
        "SECRET_KEY": "k" * 20 + "-a-long-and-random-enough-key-for-the-deploy-check-0123456789",
        "TABLETOP_DATA_DIR": str(tmp_path),
        "TABLETOP_NO_BOOTSTRAP": "1",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_pages_carry_a_csp_with_nonces_and_htmx_runs_without_eval(client: Client) -> None:
    response = client.get(reverse("tabletop:home"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    nonce = policy.split("'nonce-")[1].split("'")[0]
    html = response.content.decode()
    assert f'nonce="{nonce}"' in html
    assert '"allowEval": false' in html


def test_the_app_rolls_from_seeds_of_the_operating_systems_random_source() -> None:
    """The views hand the services the app's dice, which draw each entry's from a seed that
    ``secrets`` makes (rolls/log/fairdice.py): 32 bytes, a new one each time."""
    assert isinstance(randomness.RNG, randomness.AppDice)
    seeds = {fairdice.new_seed() for _ in range(100)}
    assert len(seeds) == 100 and {len(seed) for seed in seeds} == {32}


def test_no_module_uses_the_random_module_for_dice() -> None:
    """ruff's S311 rule: no `random.random()`-style pseudo-random numbers outside the tests."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "S311", "tabletop", "rolls", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


def test_a_million_server_dice_pass_a_chi_square_test() -> None:
    """Every face about as often as the others. The bound is the 1-in-a-million critical value
    of chi-square with 5 degrees of freedom, so this fails for a biased source, not by chance."""
    n = 1_000_000
    counts = Counter(roll_dice(fairdice.FairDice(fairdice.new_seed(), 1, fairdice.new_client_value()), n))
    expected = n / 6
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert chi_square < 35.9


def _migrate_embedded(data_dir: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH")
    }
    env.update({"TABLETOP_DATA_DIR": str(data_dir), "TABLETOP_NO_BOOTSTRAP": "1"})
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        umask=0o022,  # the usual one: files the process makes are readable by all
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_embedded_database_is_created_readable_only_by_its_owner(tmp_path: Path) -> None:
    import sqlite3

    _migrate_embedded(tmp_path)

    database = tmp_path / "tabletop.sqlite3"
    assert database.stat().st_size > 0
    assert database.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "secret-key").stat().st_mode & 0o777 == 0o600
    # Its write-ahead log and shared memory, made while a connection writes, take its mode.
    connection = sqlite3.connect(database)
    try:
        connection.execute("CREATE TABLE probe (x)")
        connection.commit()
        for suffix in ("-wal", "-shm"):
            assert (tmp_path / f"tabletop.sqlite3{suffix}").stat().st_mode & 0o777 == 0o600, suffix
    finally:
        connection.close()


def test_an_embedded_database_left_readable_by_others_is_closed_to_them(tmp_path: Path) -> None:
    database = tmp_path / "tabletop.sqlite3"
    database.touch()
    database.chmod(0o644)

    _migrate_embedded(tmp_path)

    assert database.stat().st_mode & 0o777 == 0o600
