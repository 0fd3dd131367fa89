"""The API documentation pages load nothing from another host (issue 24: ReDoc fetched Google
Fonts and Redocly's logo from a CDN)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("path", ["/api/v1/redoc/", "/api/v1/docs/"])
def test_the_documentation_pages_fetch_only_from_this_server(browser, live_server, path):
    context = browser.new_context(base_url=live_server.url)
    try:
        page = context.new_page()
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        blocked: set[str] = set()  # stopped by the page's Content-Security-Policy: never sent
        page.on("requestfailed", lambda r: r.failure in ("csp", "net::ERR_BLOCKED_BY_CSP") and blocked.add(r.url))
        page.goto(path)
        page.get_by_text("matches", exact=False).first.wait_for(timeout=20_000)  # the document rendered
        page.wait_for_load_state("networkidle")
        local = (live_server.url, "data:", "blob:")
        elsewhere = [url for url in requested if not url.startswith(local) and url not in blocked]
        assert elsewhere == []
        assert any("/api/v1/schema" in url for url in requested), requested
    finally:
        context.close()
