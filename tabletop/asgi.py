"""ASGI entry point: HTTP through Django (on long-lived request threads), websockets through
Channels."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from tabletop.serving.request_threads import RequestThreadsHandler  # noqa: E402  (needs the apps loaded)

django_asgi_app = RequestThreadsHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402  (needs the apps loaded)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from tabletop.routing import websocket_urlpatterns  # noqa: E402
from tabletop.serving.gc import freeze_startup_heap  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Sockets from pages of other origins are refused before any consumer runs.
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# Everything the process has loaded so far lives as long as it does.
freeze_startup_heap()
