"""The consent page: where the person who ran `lore serve` approves or denies a client.

Nothing else can answer it. The answer (a form POST) counts only with the UI's session cookie,
which the browser receives by opening the address `lore serve` printed (with its token); the
cookie is HttpOnly and SameSite=Strict, and the guard refuses a POST from another site's page,
so neither a page elsewhere nor the client that asked can approve itself. The answer must also
carry the form's own CSRF token, bound to the session and to that one request, so a POST that
has the cookie but no Origin header (a browser that leaves it out, a plug-in, an old proxy) is
refused unless it came from the page itself; a Referer from another site is refused too. What the client says
about itself (its name, its redirect URI) is shown escaped: it is data, not markup.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import re
import secrets
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from lore.web.guard import session_value
from lore.web.oauth.provider import CONSENT_PATH, LoreOAuth

_HOST = re.compile(r"^[A-Za-z0-9.\-\[\]:]+$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*$")


def csp_source(uri: str) -> str | None:
    """The CSP source a form may be redirected to (the client's redirect URI), or None."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        return f"{scheme}://{parts.netloc}" if _HOST.match(parts.netloc or "") else None
    return f"{scheme}:" if _SCHEME.match(scheme) else None


def csrf_token(session: str, request_id: str) -> str:
    """The consent form's token: only a page served to this session for this request has it."""
    return hmac.new(session.encode(), b"lore-consent\0" + request_id.encode(), hashlib.sha256).hexdigest()


def _same_origin(referer: str, request: Request, issuer: str) -> bool:
    """A Referer from this server (as the browser reached it, or its public address)."""
    parts = urlsplit(referer)
    given = f"{parts.scheme}://{parts.netloc}".lower()
    ours = {f"{request.url.scheme}://{request.headers.get('host', '')}".lower()}
    public = urlsplit(issuer)
    ours.add(f"{public.scheme}://{public.netloc}".lower())
    return given in ours


def _policy(redirect: str | None) -> str:
    target = f" {redirect}" if redirect else ""
    return (
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
        f"form-action 'self'{target}; frame-ancestors 'none'"
    )


def _page(title: str, body: str, status: int = 200, redirect: str | None = None) -> HTMLResponse:
    text = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{html.escape(title)}</title><link rel="stylesheet" href="/static/consent.css"></head>'
        f"<body><main>{body}</main></body></html>\n"
    )
    # same-origin, not the UI's no-referrer: under no-referrer a browser posts the form with
    # `Origin: null`, which the guard (rightly) refuses; nothing leaks to the client either way
    headers = {"content-security-policy": _policy(redirect), "referrer-policy": "same-origin"}
    return HTMLResponse(text, status_code=status, headers=headers)


def _notice(title: str, text: str, status: int) -> HTMLResponse:
    return _page(title, f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>", status)


class Consent:
    """GET shows the request, POST answers it; `cookie` is the UI session cookie's name."""

    def __init__(self, provider: LoreOAuth, token: str, cookie: str):
        self.provider = provider
        self.session = session_value(token)
        self.cookie = cookie

    async def page(self, request: Request) -> Response:
        request_id = request.query_params.get("request", "")
        pending = self.provider.pending(request_id)
        if pending is None:
            return _notice(
                "Unknown request", "This request is unknown or too old; start again from your client.", 400
            )
        name = html.escape(pending.client_name)
        redirect = str(pending.params.redirect_uri)
        scopes = " ".join(pending.params.scopes or ["lore"])
        body = (
            f"<h1>Allow <strong>{name}</strong> to use Lore?</h1>"
            "<p>It asks for this Lore server's tools over MCP: your projects' rules, their "
            "engineering history and your books. Approve only if you are adding it yourself now.</p>"
            f'<dl><dt>Client</dt><dd class="client">{name}</dd>'
            f'<dt>Sends you back to</dt><dd><code class="redirect">{html.escape(redirect)}</code></dd>'
            f"<dt>Access</dt><dd>{html.escape(scopes)}</dd></dl>"
            f'<form method="post" action="{CONSENT_PATH}">'
            f'<input type="hidden" name="request" value="{html.escape(request_id)}">'
            f'<input type="hidden" name="csrf" value="{csrf_token(self.session, request_id)}">'
            '<button type="submit" name="decision" value="approve" class="approve">Approve</button> '
            '<button type="submit" name="decision" value="deny" class="deny">Deny</button></form>'
            '<p class="hint">Approving needs this browser to have opened the address '
            "<code>lore serve</code> printed (with its token).</p>"
        )
        return _page(f"Allow {pending.client_name} to use Lore?", body, redirect=csp_source(redirect))

    async def answer(self, request: Request) -> Response:
        form = await request.form()
        given = request.cookies.get(self.cookie, "")
        if not secrets.compare_digest(given.encode(), self.session.encode()):
            return _notice(
                "Not signed in",
                "Open the address `lore serve` printed (with its token) in this browser, "
                "then come back to this page and answer again.",
                403,
            )
        request_id = str(form.get("request", ""))
        given_csrf = str(form.get("csrf", ""))
        referer = request.headers.get("referer")
        forged = not secrets.compare_digest(
            given_csrf.encode(), csrf_token(self.session, request_id).encode()
        )
        if forged or (referer is not None and not _same_origin(referer, request, self.provider.issuer)):
            return _notice(
                "Refused",
                "This answer did not come from the consent page this server showed;"
                " open the page again from your client and press a button there.",
                403,
            )
        decision = str(form.get("decision", ""))
        if decision not in ("approve", "deny"):
            return _notice("No answer", "Press Approve or Deny.", 400)
        target = (
            await self.provider.approve(request_id)
            if decision == "approve"
            else self.provider.deny(request_id)
        )
        if target is None:
            return _notice(
                "Unknown request", "This request is unknown or too old; start again from your client.", 400
            )
        return RedirectResponse(target, status_code=303)
