"""ASGI entry point: HTTP through Django (on long-lived request threads, or with
``FAST_PATH``'s request_threads off on Django's own handler; the feed's long streams always on
Django's own, tabletop/streams.py), websockets through Channels."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from typing import Any  # noqa: E402

from django.core.asgi import get_asgi_application  # noqa: E402

from tabletop.serving import enabled  # noqa: E402  (needs the settings)

django_asgi_app: Any  # an ASGI application
http_app: Any

if enabled("request_threads"):
    from tabletop.serving.request_threads import RequestThreadsHandler  # (needs the apps loaded)
    from tabletop.streams import LongStreams

    django_asgi_app = RequestThreadsHandler()
    # The feed's streams on Django's own handler: none holds a request thread (tabletop/streams.py).
    http_app = LongStreams(django_asgi_app, get_asgi_application())
else:
    django_asgi_app = http_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the apps loaded)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from tabletop.origin import SameOriginValidator  # noqa: E402
from tabletop.routing import websocket_urlpatterns  # noqa: E402
from tabletop.serving.gc import Lifespan, freeze_startup_heap  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": http_app,
        # Sockets from pages of other origins (scheme, host and port) are refused before any
        # consumer runs: tabletop/origin.py.
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        # The server's word that this process serves: tabletop/serving/gc.py.
        "lifespan": Lifespan(),
    }
)

# Everything the process has loaded so far lives as long as it does.
freeze_startup_heap()
