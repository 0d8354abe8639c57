"""Fixtures shared by every test: the three personas and a table ready to roll."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import AbstractBaseUser
from pytest_django.fixtures import Settings

from rolls import campaigns as services
from tabletop.models import Campaign, Character
from tests import factories

# With TEST_PRODUCTION=1 (set by `manage.py runtests` under CI=true) the suite runs on
# PostgreSQL + Redis, and the tests marked `production` must run there, never skip.
PRODUCTION = os.environ.get("TEST_PRODUCTION") == "1"


@dataclass
class Table:
    """A sixes campaign with a GM, a player with a character, and an outsider, session open."""

    campaign: Campaign
    gm: AbstractBaseUser
    player: AbstractBaseUser
    outsider: AbstractBaseUser
    character: Character


@pytest.fixture
def table(db: None) -> Table:
    return build_table()


def build_table() -> Table:
    gm = factories.user("gm")
    player = factories.user("player")
    outsider = factories.user("outsider")
    campaign = factories.campaign(gm)
    factories.member(campaign, player, name="Player")
    character = factories.character(campaign, player, name="Olle")
    services.session_start(campaign=campaign, actor=gm)
    character.refresh_from_db()
    return Table(campaign, gm, player, outsider, character)


@pytest.fixture(scope="session", autouse=True)
def _static_files() -> None:
    """Pages name their static files through the manifest (``{% static %}`` with debug off):
    a fresh clone has none until the files are collected."""
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def _fresh_channel_layer(request: pytest.FixtureRequest) -> None:
    """Each async test runs on an event loop of its own, and the Redis layer binds its locks to
    the loop that first used it: every test gets a new layer. (Not the browser tests: their
    server thread keeps one loop and one layer for the whole package.)"""
    if request.node.get_closest_marker("browser") is None:
        from channels.layers import channel_layers

        channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> None:
    """Rate-limit counters live in the cache; user ids repeat between tests, so each test
    starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1234)


@pytest.fixture
def fast_passwords(settings: Settings) -> None:
    """Opt-in (``pytestmark = pytest.mark.usefixtures("fast_passwords")``): Django's PBKDF2 costs
    about half a second a user, which view tests that build three users each cannot afford.
    Not autouse: the browser tests' server process checks passwords with the real hashers."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
