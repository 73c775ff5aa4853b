"""Request checks and response headers for the dashboard.

* Every state-changing route is POST and must carry the page's CSRF token in the
  ``X-CSRF-Token`` header; an ``Origin`` (or, lacking it, ``Referer``) naming another site is
  refused, as is ``Sec-Fetch-Site: cross-site``.
* When the app has an ``ACCESS_TOKEN`` (the dashboard listens beyond loopback), a POST must also
  present it: header ``X-Access-Token`` or the ``companion_token`` cookie, which the page sets when
  opened as ``/?token=...``.
* Without an access token (loopback only), a request whose ``Host`` is not a loopback name is
  refused: a web page that rebinds its DNS name to 127.0.0.1 cannot read the page or its token.
* A body larger than ``MAX_CONTENT_LENGTH`` is refused with 413 before any route runs.
* Responses carry a CSP allowing only this origin (no inline scripts), ``X-Frame-Options: DENY``,
  ``nosniff`` and a same-origin referrer policy.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlsplit

from flask import Flask, Response, current_app, jsonify, request

TOKEN_COOKIE = "companion_token"
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and hmac.compare_digest(a.encode(), b.encode())


def _origin_problem() -> str | None:
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return f"expected a same-origin request, got Sec-Fetch-Site {site!r}"
    origin = request.headers.get("Origin")
    source = origin if origin is not None else request.headers.get("Referer")
    if source is None:
        return None
    parts = urlsplit(source)
    if parts.netloc != request.host or parts.scheme not in ("http", "https"):
        return f"expected a request from {request.host_url.rstrip('/')}, got one from {source!r}"
    return None


def _loopback_name(host: str) -> bool:
    """Whether a ``Host`` header (``name[:port]``) names this machine's loopback interface."""
    name = host[1:host.find("]")] if host.startswith("[") else host.rsplit(":", 1)[0]
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_request() -> Response | tuple[Response, int] | None:
    """Refuse a request whose body is too large or, on loopback, whose Host is not loopback
    (DNS rebinding); refuse a state-changing request that is cross-site, lacks the CSRF token or
    the access token."""
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and request.content_length is not None and request.content_length > limit:
        return jsonify(error=f"expected a request body of at most {limit} bytes, got {request.content_length}"), 413
    if not current_app.config.get("ACCESS_TOKEN") and not _loopback_name(request.host):
        return jsonify(error=f"expected a loopback address (localhost, 127.0.0.1) in Host, got {request.host!r}"), 400
    if request.method in _SAFE_METHODS:
        return None
    problem = _origin_problem()
    if problem is not None:
        return jsonify(error=problem), 403
    if not _same(request.headers.get("X-CSRF-Token"), current_app.config["CSRF_TOKEN"]):
        return jsonify(error="expected the page's CSRF token in X-CSRF-Token, got none or a wrong one"), 403
    wanted = current_app.config.get("ACCESS_TOKEN")
    if wanted:
        given = request.headers.get("X-Access-Token") or request.cookies.get(TOKEN_COOKIE)
        if not _same(given, wanted):
            return jsonify(error="expected the access token (open the address with ?token=...), got none or a wrong one"), 403
    return None


def add_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    if response.mimetype in ("application/json", "text/event-stream") or response.mimetype.startswith("multipart/"):
        response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    app.before_request(check_request)
    app.after_request(add_headers)
