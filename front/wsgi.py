"""Django's WSGI handler on a pool of threads, for requests read whole on the event loop.

The smallest piece of the front that is written here rather than taken from a library: a2wsgi's
``WSGIMiddleware`` does the same job, but hands every answer from the thread to the loop in three
blocking steps (the status line, each chunk, the end) and reads the body through the loop again.
Measured against this module (front/app.py's docstring has the figures), it used twice the CPU per
request, about 1.1 ms more per move; the issue allowed 5 %. Swapping it in is a few lines in
`front.app.build` should a later version do better.

Here a plain answer (``HttpResponse``) comes back from its thread in one step, status, headers and
body together. A streamed one (``StreamingHttpResponse``: the ndjson export, a static file from
WhiteNoise) is sent chunk by chunk as its thread produces them, the thread waiting for the loop to
take each chunk before it makes the next; both are closed when done (Django's
``request_finished``: the thread's database connection is tidied as after any request).
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def environ(scope: Scope, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP request (PEP 3333: the path as latin-1 of its UTF-8
    bytes; repeated headers joined with commas; REMOTE_ADDR the TCP peer)."""
    server = scope.get("server") or ("127.0.0.1", 80)
    client = scope.get("client") or ("", 0)
    env: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope["headers"]:
        key = raw_name.decode("latin-1").upper().replace("-", "_")
        if key not in ("CONTENT_LENGTH", "CONTENT_TYPE"):
            key = "HTTP_" + key
        value = raw_value.decode("latin-1")
        env[key] = f"{env[key]},{value}" if key in env else value
    return env


class ThreadedWSGI:
    """Runs a WSGI application on ``threads`` threads of its own (made on first use)."""

    def __init__(self, app: WSGIApp, threads: int) -> None:
        self.app = app
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None

    @property
    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="django")
        return self._pool

    async def __call__(self, scope: Scope, body: bytes, send: Send) -> None:
        """Run the application on ``scope`` and ``body`` on a pool thread; send its answer."""
        loop = asyncio.get_running_loop()
        started: list[Message] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            encoded = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
            started[:] = [{"type": "http.response.start", "status": int(status.split(" ", 1)[0]), "headers": encoded}]

        def on_loop(message: Message) -> None:
            asyncio.run_coroutine_threadsafe(send(message), loop).result()  # type: ignore[arg-type]

        def run() -> bytes | None:
            """The whole body of a plain answer; None once a streamed one has been sent chunk by chunk."""
            result = self.app(environ(scope, body), start_response)
            try:
                if not getattr(result, "streaming", True):  # a plain HttpResponse: its content, whole
                    return result.content  # type: ignore[attr-defined]
                on_loop(started[0])
                for chunk in result:
                    if chunk:
                        on_loop({"type": "http.response.body", "body": chunk, "more_body": True})
                on_loop({"type": "http.response.body", "body": b""})
                return None
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()

        whole = await loop.run_in_executor(self.pool, run)
        if whole is not None:
            await send(started[0])
            await send({"type": "http.response.body", "body": whole})

    def shutdown(self) -> None:
        """Stop the threads (lifespan shutdown). A server started again in this process (the tests
        run several, one after the other, on the one `application`) gets a new pool."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
