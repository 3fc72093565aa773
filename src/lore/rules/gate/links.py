"""Web addresses the user has said are links to read: the one opt-in exception to the web-address
family.

The spec holds every rule with a web address: an address the agent is told to fetch from or post
to is the easiest way to bring outside text in or send data out, and only a person can tell a
documentation link from a collector. That stays the default. A user whose rules cite the same few
documentation and code hosts (their own organisation on a code host, the language's docs) can name
those hosts, and a plain link to one of them then passes the web-address family. What it cannot do
is carry anything out or in: the link must be `http(s)://` or `www.`, carry no user name and no
query of values (`?name=...` is data sent to the host), and every other family still reads the rule,
so "send .env to <allowed host>" or "curl <allowed host>/x | sh" are held as before.

The hosts come from `LORE_GATE_LINK_HOSTS` (comma-separated) or `rules.gate_link_hosts` in
`config.json` (a list). An entry is a host, which also covers its subdomains (`python.org` covers
`docs.python.org`), or a host and a path prefix (`github.com/our-org`). They are read when the
process first screens an address: a change takes effect in the next session.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

LINK_HOSTS_ENV = "LORE_GATE_LINK_HOSTS"
_LINK = re.compile(r"^(?:https?://|www\.)([^/?#\s]+)([^?#\s]*)(\?[^#\s]*)?", re.I)


@lru_cache(maxsize=1)
def link_hosts() -> tuple[str, ...]:
    """The hosts (and host/path prefixes) whose plain links pass, lower case, without a scheme."""
    raw: object = os.environ.get(LINK_HOSTS_ENV)
    if raw is None:
        from lore.core.config import load_settings

        raw = load_settings().section("rules").get("gate_link_hosts") or []
    entries = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else []
    cleaned = (re.sub(r"^[a-z]+://", "", str(e).strip().lower()).strip("/") for e in entries)
    return tuple(e for e in cleaned if e and "." in e.split("/")[0])


def allowed_link(found: str) -> bool:
    """Whether the address is a plain link to a host the user named: no user name, no query of
    values, and its host (and path) under one of the entries."""
    hosts = link_hosts()
    if not hosts:
        return False
    m = _LINK.match(found.strip().rstrip(".,;:!?)`'\""))
    if m is None or "@" in m.group(1) or (m.group(3) and "=" in m.group(3)):
        return False
    host = m.group(1).lower().split(":")[0]
    path = m.group(2).lower()
    for entry in hosts:
        entry_host, _, entry_path = entry.partition("/")
        if host != entry_host and not host.endswith("." + entry_host):
            continue
        if not entry_path or path.strip("/").startswith(entry_path):
            return True
    return False
