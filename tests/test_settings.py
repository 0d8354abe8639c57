"""Settings read from the environment: a bad value stops the server with a clear message."""

from __future__ import annotations

import pytest

from tabletop.settings import env_int


def test_a_whole_number_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_CONCURRENT_WRITES", " 16 ")
    assert env_int("MAX_CONCURRENT_WRITES", 64, minimum=1) == 16


def test_unset_or_empty_gives_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MAX_CONCURRENT_WRITES", raising=False)
    assert env_int("MAX_CONCURRENT_WRITES", 64, minimum=1) == 64
    monkeypatch.setenv("MAX_CONCURRENT_WRITES", "")
    assert env_int("MAX_CONCURRENT_WRITES", 64, minimum=1) == 64


@pytest.mark.parametrize("value", ["lots", "-3", "0", "1.5"])
def test_anything_else_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MAX_CONCURRENT_WRITES", value)
    with pytest.raises(ValueError, match="MAX_CONCURRENT_WRITES must be a whole number of at least 1"):
        env_int("MAX_CONCURRENT_WRITES", 64, minimum=1)
