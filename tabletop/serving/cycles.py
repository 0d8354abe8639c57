"""Fewer objects left in reference cycles by each request, so fewer collections, and shorter.

A request that ends in a reference cycle is freed only when the cyclic collector finds it, and
everything it reaches waits with it: on the roll path some 250 objects a request (2026-12-02,
tests/test_gc.py counts them). Each cycle below is one back-reference; it is cut when nothing
needs it any more, and reference counting frees the rest at once:

- the request: ``request.htmx`` (django-htmx's details keep the request), the message
  storages (each keeps the request) and a multipart POST's upload handlers (each keeps the
  request). Cut when the response is closed (``request_finished``, which Django sends from
  ``close()`` on the thread that ran the request, after the body has gone out or, on
  ``request_threads``, once it is in memory): ``BreakRequestCyclesMiddleware``, through the
  documented ``get_messages()`` and ``request.upload_handlers``.
- ``request.user`` and ``request.auser``: Django's ``AuthenticationMiddleware`` makes them as a
  lazy object whose function closes over the request and a partial of the request. Ours
  (``AuthenticationMiddleware`` below, in ``MIDDLEWARE``) makes the same two over a weak
  reference to the request, so no cycle is made: they read the user while the request lives
  (anyone who can still ask for the user holds the request: the handler, a test's response).
- a form: each ``BoundField`` keeps its form and the form keeps its bound fields (a cache).
  The bound fields of a request's forms (``FormRenderer.bound_field_class``, Django's own
  hook) keep their form while the request runs and only a weak reference to it once the
  response is closed: a form nobody else keeps is then freed at once, cache and all. (Weak
  from the start would not do: a template may be handed a single bound field of a form
  nobody else keeps.) A form a test still holds keeps working, and its bound fields with it.
- a template context: every dict that ``context.push()`` and ``update()`` add keeps its
  context. After the template has rendered, the context is popped down to its
  builtins (``Context.pop()`` until ``ContextPopException``, as documented for templates
  driven from Python): ``DjangoTemplates`` below.

Part of the ``gc`` piece of ``FAST_PATH``: with it off, none of this runs (Django's own
authentication middleware runs, bound fields keep their form). All of it stands on Django's
documented API: the signal, the middleware's ``process_request``, ``auth.get_user()``/
``aget_user()``, ``get_messages()``, ``upload_handlers``, ``bound_field_class`` and
``BoundField.form``, the context's stack. Until 2026-12-07 the request's and the form's cuts
wrote attributes Django keeps for itself; ``tests/test_serving_public_ground.py`` now searches
for them too.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from typing import Any

from django.contrib import auth
from django.contrib.auth import middleware as auth_middleware
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.core.signals import request_finished
from django.dispatch import receiver
from django.forms import BaseForm, Field
from django.forms.boundfield import BoundField
from django.forms.renderers import DjangoTemplates as DjangoTemplatesRenderer
from django.http import HttpRequest, HttpResponseBase
from django.template import Context
from django.template.backends import django as django_backend
from django.template.context import ContextPopException, make_context
from django.template.exceptions import TemplateDoesNotExist
from django.utils.functional import SimpleLazyObject

from tabletop.serving import enabled


class BreakRequestCyclesMiddleware:
    """Outermost: cuts the request's cycles once its response is closed."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not enabled("gc"):
            return self.get_response(request)
        fields: list[NotedBoundField] = []
        noted = _fields_of_this_request.set(fields)
        try:
            response = self.get_response(request)
        finally:
            _fields_of_this_request.reset(noted)
        # For this thread's request_finished; a response never closed leaves its request to
        # the collector, and the thread's next request takes the place.
        _closing.cut = partial(break_request_cycles, request, fields)
        return response


# The request whose cycles this thread cuts when its response is closed.
_closing = threading.local()


@receiver(request_finished)
def _response_closed(**kwargs: Any) -> None:
    cut = getattr(_closing, "cut", None)
    if cut is not None:
        _closing.cut = None
        cut()


def break_request_cycles(request: HttpRequest, fields: list[NotedBoundField]) -> None:
    for field in fields:
        field.let_go_of_form()
    htmx = getattr(request, "htmx", None)
    if htmx is not None and getattr(htmx, "request", None) is request:
        htmx.request = None
    storage = get_messages(request)
    # The storage stays readable (what a test reads after the response); only its way back to
    # the request goes (a FallbackStorage has two more inside).
    for each in (storage, *getattr(storage, "storages", ())):
        if getattr(each, "request", None) is request:
            each.request = None
    if request.content_type == "multipart/form-data":  # its upload handlers, made for it
        for handler in request.upload_handlers:
            handler.request = None


# The bound fields made while the middleware's request runs.
_fields_of_this_request: ContextVar[list[NotedBoundField] | None] = ContextVar(
    "fields_of_this_request", default=None
)


class AuthenticationMiddleware(auth_middleware.AuthenticationMiddleware):
    """Django's, with ``request.user`` and ``request.auser`` reading the request through a weak
    reference, so that they make no cycle with it (see the module's doc)."""

    def process_request(self, request: HttpRequest) -> None:
        if not enabled("gc") or not hasattr(request, "session"):
            super().process_request(request)  # Django's, and its word on a missing session
            return
        held = weakref.ref(request)
        request.user = SimpleLazyObject(partial(_user_of, held))  # type: ignore[assignment]
        request.auser = partial(_auser_of, held)  # type: ignore[assignment]


def _user_of(held: weakref.ref[HttpRequest]) -> AbstractBaseUser | AnonymousUser:
    return auth.get_user(_alive(held))  # read once: the lazy object keeps what it read


async def _auser_of(held: weakref.ref[HttpRequest]) -> AbstractBaseUser | AnonymousUser:
    # Read on every call (Django's keeps the first on the request); no view of ours asks.
    return await auth.aget_user(_alive(held))


def _alive(held: weakref.ref[HttpRequest]) -> HttpRequest:
    request = held()
    if request is None:
        raise RuntimeError("the request this user belonged to is gone: keep the request to ask")
    return request


class NotedBoundField(BoundField):
    """A bound field that keeps its form while its request runs and only a weak reference to it
    after (see the module's doc). Outside a request it keeps its form, as Django's does."""

    def __init__(self, form: BaseForm, field: Field, name: str):
        super().__init__(form, field, name)
        fields = _fields_of_this_request.get()
        if fields is not None:
            fields.append(self)

    # BoundField.form, documented: Django's code reads it as an attribute, and so does this.
    @property  # type: ignore[override]
    def form(self) -> BaseForm | None:
        held = self.held_form
        return held() if isinstance(held, weakref.ref) else held

    @form.setter
    def form(self, form: BaseForm) -> None:
        self.held_form: BaseForm | weakref.ref[BaseForm] = form

    def let_go_of_form(self) -> None:
        held = self.held_form
        if not isinstance(held, weakref.ref):
            self.held_form = weakref.ref(held)


class FormRenderer(DjangoTemplatesRenderer):
    """Django's default form renderer, with the bound fields above."""

    bound_field_class = NotedBoundField


def break_context_cycles(context: Context) -> None:
    try:
        while True:
            context.pop()  # each pushed dict keeps the context; popped, nothing keeps it
    except ContextPopException:
        pass  # down to the builtins


class Template(django_backend.Template):
    def render(self, context: Any = None, request: HttpRequest | None = None) -> str:
        if not enabled("gc"):
            return super().render(context, request)
        made = make_context(context, request, autoescape=self.backend.engine.autoescape)
        try:
            return self.template.render(made)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self.backend)
        finally:
            break_context_cycles(made)


class DjangoTemplates(django_backend.DjangoTemplates):
    """Django's template backend whose templates cut their context's cycles after rendering."""

    def from_string(self, template_code: str) -> Template:
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name: str) -> Template:
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self)
