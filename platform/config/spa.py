"""Serves the built single-page app's index.html for every browser route (client-side routing)."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

MISSING = """<!doctype html><title>Sampan</title><h1>The Sampan web app is not built</h1>
<p>Run <code>make frontend</code> (or <code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>),
or use the Vite dev server with <code>make dev</code>.
The API is at <a href="/api/docs/">/api/docs/</a>.</p>"""


@require_GET
@ensure_csrf_cookie
def index(request, path: str = ""):
    index_file = settings.FRONTEND_DIST / "index.html"
    if not index_file.is_file():
        return HttpResponse(MISSING, status=503)
    response = FileResponse(index_file.open("rb"), content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response
