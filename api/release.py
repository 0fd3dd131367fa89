"""Free a DRF request's objects as soon as its answer is rendered (issue 31).

A DRF view, its `Request` and its `Response` refer to each other in rings: the Request's
``parser_context`` names the view and the Request itself, the view keeps ``request`` and
``response`` (and ``head``, its own ``get``), and the Response's ``renderer_context`` names the view
and the Request. Reference counting cannot free a ring, so every answer stayed in memory with all
its data (an events page of 80 records: 550 objects) until the garbage collector's next pass, which
then had to traverse it and free it. In one process, 600 reads of ``events?after=0`` each: the
collector's time 0.28 → 0.07 ms a request, the median read 2.48 → 2.00 ms. Cutting the rings once
the answer is rendered frees each object when its last reference goes. ``response.data`` stays
(the test client reads it).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class ReleaseMiddleware:
    """First in ``MIDDLEWARE``, so it runs last on the way out: the answer is rendered by then (Django
    renders a DRF `Response` before any middleware sees it) and nothing after it reads the view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        release(response)
        return response


def release(response: HttpResponse) -> None:
    """Cut the rings between a rendered DRF answer, its view and its Request (none for others)."""
    context = getattr(response, "renderer_context", None)
    if not context or not getattr(response, "is_rendered", True):
        return
    view, drf_request = context.get("view"), context.get("request")
    response.renderer_context = None  # type: ignore[attr-defined]
    if view is not None:  # made for this request alone (``as_view``): its ``head`` is its own ``get``, a ring too
        view.__dict__.clear()
    if drf_request is not None:
        drf_request.parser_context = None
