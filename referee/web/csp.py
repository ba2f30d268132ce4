"""The Content-Security-Policy of the pages, and the API docs page without inline script.

Every answer outside ``/v1/`` (the pages, their static files, the docs, any
error page) and every picture carries one policy: scripts, styles, pictures and
calls only from this server, no inline script, no inline event handler, no
plugin, no framing by another site. A seat's page holds its token in memory, so
no script injected into a page (a player's name, say) may run there. JSON
answers carry no policy: a browser renders none of them as a page.

flask-smorest's Swagger UI page starts Swagger UI with an inline script; the
docs page here is the same page with that script in ``static/docs.js``.
"""

from __future__ import annotations

from flask import Flask, Response, render_template, request, url_for

POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",  # no 'unsafe-inline': inline scripts and handlers are refused
    "style-src 'self'",
    "img-src 'self' data:",  # Swagger UI's icons are data: pictures
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
HEADER = "Content-Security-Policy"


def _add_policy(response: Response) -> Response:
    if HEADER not in response.headers and (
            not request.path.startswith("/v1/") or response.mimetype == "image/svg+xml"):
        response.headers[HEADER] = POLICY
    return response


def install(app: Flask) -> None:
    app.after_request(_add_policy)
    endpoint = "api-docs.openapi_swagger_ui"
    if endpoint in app.view_functions:
        app.view_functions[endpoint] = docs_page


def docs_page():
    """Swagger UI, started by a static script (no inline script)."""
    return render_template("docs.html", spec_url=url_for("api-docs.openapi_json"),
                           assets=url_for("ops.docs_assets", name=""))
