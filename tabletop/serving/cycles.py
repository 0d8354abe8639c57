"""Fewer objects left in reference cycles by each request, so fewer collections, and shorter.

A request that ends in a reference cycle is freed only when the cyclic collector finds it, and
everything it reaches waits with it: on the roll path some 250 objects a request (2026-12-02,
tests/test_gc.py counts them). Each cycle below is one back-reference; it is cut when nothing
needs it any more, and reference counting frees the rest at once:

- the request: ``request.htmx`` (django-htmx's details keep the request), the message
  storages (each keeps the request), ``request.user`` (a lazy object whose function closes
  over the request), ``request.auser`` (a partial of the request) and a multipart POST's upload
  handlers (each keeps the request). Cut when the response is closed (``request_finished``,
  which Django sends from ``close()`` on the thread that ran the request, after the body has
  gone out or, on ``request_threads``, once it is in memory): ``BreakRequestCyclesMiddleware``.
- a form: each ``BoundField`` keeps its form and the form keeps its bound fields (a cache).
  The bound fields of a request's forms (``FormRenderer.bound_field_class``, Django's own
  hook) note their form, and the form's cache is emptied when the response is closed; a bound
  field a template still holds keeps its form, and the form fills its cache again if asked.
  (A weak reference from the field to its form would not do: templates are handed a single
  bound field of a form nobody else keeps.)
- a template context: every dict that ``context.push()`` and ``update()`` add keeps its
  context. After the template has rendered, the context is popped down to its
  builtins (``Context.pop()`` until ``ContextPopException``, as documented for templates
  driven from Python): ``DjangoTemplates`` below.

Part of the ``gc`` piece of ``FAST_PATH``: with it off, none of this runs. The signal and the
context's stack are Django's documented API; the request's and the form's cuts are not: they
write attributes Django keeps for itself (listed in ``tabletop/serving/__init__.py``, "gc"),
the last private names of the app besides the consumer's, kept for the cycles they save until
a public way is found.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from typing import Any

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
from django.utils.functional import empty

from tabletop.serving import enabled


class BreakRequestCyclesMiddleware:
    """Outermost: cuts the request's cycles once its response is closed."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not enabled("gc"):
            return self.get_response(request)
        forms: list[BaseForm] = []
        noted = _forms_of_this_request.set(forms)
        try:
            response = self.get_response(request)
        finally:
            _forms_of_this_request.reset(noted)
        # For this thread's request_finished; a response never closed leaves its request to
        # the collector, and the thread's next request takes the place.
        _closing.cut = partial(break_request_cycles, request, forms)
        return response


# The request whose cycles this thread cuts when its response is closed.
_closing = threading.local()


@receiver(request_finished)
def _response_closed(**kwargs: Any) -> None:
    cut = getattr(_closing, "cut", None)
    if cut is not None:
        _closing.cut = None
        cut()


def break_request_cycles(request: HttpRequest, forms: list[BaseForm]) -> None:
    for form in forms:
        form._bound_fields_cache = {}  # type: ignore[attr-defined]
    attributes = request.__dict__
    htmx = attributes.get("htmx")
    if htmx is not None and getattr(htmx, "request", None) is request:
        htmx.request = None
    storage = attributes.get("_messages")
    if storage is not None:
        # The storage stays readable (what a test reads after the response); only its way
        # back to the request goes.
        for each in (storage, *getattr(storage, "storages", ())):
            each.request = None
    user = attributes.get("user")
    if user is not None and user.__dict__.get("_wrapped", empty) is not empty:
        user.__dict__["_setupfunc"] = None  # read once: the closure over the request is spent
    attributes.pop("auser", None)
    for handler in attributes.get("_upload_handlers", ()):  # a multipart POST's, made for it
        handler.request = None


# The forms whose bound fields were made while the middleware's request runs.
_forms_of_this_request: ContextVar[list[BaseForm] | None] = ContextVar("forms_of_this_request", default=None)


class NotedBoundField(BoundField):
    """A bound field that notes its form for the end of the request (see the module's doc)."""

    def __init__(self, form: BaseForm, field: Field, name: str):
        super().__init__(form, field, name)
        forms = _forms_of_this_request.get()
        if forms is not None and (not forms or forms[-1] is not form):
            forms.append(form)  # a form's fields come one after another: seldom noted twice


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
