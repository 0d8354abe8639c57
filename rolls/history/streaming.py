"""A streamed answer whose parts come from a synchronous generator that reads the database.

Django serves a synchronous iterator under ASGI by reading it whole into a list first (with a
warning), which would hold a 100,000-roll export in memory. This response instead takes the
parts a batch at a time on the request's own thread (``thread_sensitive``: the thread that ran
the view, so the generator's database cursor stays on its connection), and sends each batch.
The test client and WSGI iterate it synchronously, as any ``StreamingHttpResponse``.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.http import StreamingHttpResponse

BATCH = 64  # parts per trip to the thread: each part is a few hundred bytes


class SyncStreamingResponse(StreamingHttpResponse):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        parts = iter(self.streaming_content)  # type: ignore[arg-type]  # synchronous here

        def take() -> list[bytes]:
            return list(itertools.islice(parts, BATCH))

        batch_of = sync_to_async(take, thread_sensitive=True)
        while batch := await batch_of():
            for part in batch:
                yield part
