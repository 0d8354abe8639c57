"""The URL patterns: each name resolves to its own pattern whatever the order, and the requests a
table sends all evening are tried first (a resolve tries each pattern in order)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.converters import IntConverter

from rolls import urls as rolls_urls

# A value each converter takes: an id, or a token.
SAMPLE = {IntConverter: 7}


def _named(patterns: list[URLPattern | URLResolver], namespace: str = "") -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found += _named(pattern.url_patterns, inner)
        elif pattern.name:
            found.append((namespace + pattern.name, pattern))
    return found


def test_every_named_url_resolves_to_itself() -> None:
    named = _named(get_resolver().url_patterns)
    assert len(named) > 50
    for name, pattern in named:
        converters = pattern.pattern.converters  # type: ignore[attr-defined]
        kwargs = {key: SAMPLE.get(type(converter), "tok3n") for key, converter in converters.items()}
        path = reverse(name, kwargs=kwargs)
        assert resolve(path).view_name == name, (name, path)


def test_the_table_requests_are_tried_first() -> None:
    first = [pattern.name for pattern in rolls_urls.urlpatterns[:3]]  # type: ignore[union-attr]
    assert first == ["roll-create", "follow-up", "odds"]
    assert resolve("/c/3/characters/4/roll/").view_name == "rolls:roll-create"
    assert resolve("/c/3/rolls/5/follow-up/").view_name == "rolls:follow-up"
    assert resolve("/c/3/characters/4/odds/").view_name == "rolls:odds"
