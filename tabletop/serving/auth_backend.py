"""Django's model backend, reading the signed-in user with a compiled query.

Every request of a signed-in user reads the user once; compiling that read was most of it
(tabletop/serving/compiled_query.py). Everything else, passwords included, is Django's. The
settings name it while ``FAST_PATH["compiled_queries"]`` is on, and Django's own backend
otherwise."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import backends, get_user_model

from tabletop.serving.compiled_query import CompiledQuery

_USER: CompiledQuery[Any] = CompiledQuery(lambda pk: get_user_model()._default_manager.filter(pk=pk), "pk")


class ModelBackend(backends.ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        try:
            pk = int(user_id)
        except (TypeError, ValueError):
            return None
        user = _USER.get_or_none(pk=pk)
        return user if user is not None and self.user_can_authenticate(user) else None
