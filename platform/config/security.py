"""Response headers Django's SecurityMiddleware does not set: a Content-Security-Policy on every
response, and ``Cache-Control: no-store`` on API answers that say nothing about caching.

The policy allows only this origin's scripts: the built SPA (one module script and its chunks from
/assets/), the API docs page (SpectacularSwaggerSplitView: Swagger UI from /static/, its init script
from /api/docs/?script, nothing inline) and Django admin. Styles may be inline ('unsafe-inline' in
style-src only): Mantine and Swagger UI set style attributes and inject <style> elements at run time.
Images may be data: and blob: URLs (Swagger UI's icons, local previews of files to upload).
'wasm-unsafe-eval' lets this origin's scripts compile WebAssembly (onnxruntime-web times a model in the
browser on a compression's page, from the build's own /assets/*.wasm); it allows no JavaScript eval.

API answers hold private data and sometimes secrets shown once (a new personal token or deployment
key), so none may be stored by a browser or a proxy unless its view sets its own Cache-Control
(content-addressed images are immutable). The prediction fast path (deploy.api.fastpath) adds the
same two headers to its answers.
"""

from __future__ import annotations

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
API_CACHE_CONTROL = "no-store"


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        if "Cache-Control" not in response and request.path_info.startswith("/api/"):
            response["Cache-Control"] = API_CACHE_CONTROL
        return response
