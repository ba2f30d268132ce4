"""Where a webhook may go: only to addresses anyone on the internet could reach.

Whoever creates a game names its webhook URLs. Were the referee to call any
address it is given, a game's creator could make it send requests into its own
network (the cloud's metadata service, an admin page on loopback, a database on
a private address). So an address is refused unless it is globally routable:
``ipaddress`` finds it ``is_global`` and it is no multicast, reserved or
site-local address. An IPv6 address that carries an IPv4 one is judged by that
IPv4 address too: IPv4-mapped (``::ffff:0:0/96``), 6to4 (``2002::/16``), Teredo
(``2001::/32``, refused anyway: not globally routable) and NAT64 (``64:ff9b::/96``;
the local-use ``64:ff9b:1::/48`` is refused whole, its IPv4 part sits where its
network chose).

A URL is checked when it is given (``contacts.check_webhook``: creation, a
contact's or the spectators' change, a seat's replacement), where a name that does
not resolve yet is let through; and again at every delivery (``post``), since a
name may resolve elsewhere by then. The delivery resolves the name once, refuses
it if any address it gives is refused, and connects to an address so checked
(no second look-up whose answer could differ, no redirect followed, no proxy).
A refused delivery is no failure that time mends: the notice is marked
``failed`` with the reason, not retried (referee/mail/sending.py).

``REFEREE_WEBHOOK_ALLOW_PRIVATE=1`` turns the guard off, at both moments: tests
with a receiver on loopback, a league on a closed network.
"""

from __future__ import annotations

import http.client
import ipaddress
import os
import socket
from urllib.parse import urlsplit

NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: local use only


class WebhookRefused(Exception):
    """A webhook's host is, or resolves to, an address the referee must not call."""


def private_allowed() -> bool:
    return os.environ.get("REFEREE_WEBHOOK_ALLOW_PRIVATE", "") in ("1", "true", "yes")


def refusal(address: str) -> str | None:
    """Why the referee must not call ``address`` (an IP address's text), in a few
    words ("not globally routable"), or None when it may."""
    a = ipaddress.ip_address(address)
    if a.version == 6:
        if a.ipv4_mapped is not None:  # the IPv4 address itself, written as IPv6
            return _carried("IPv4-mapped", a.ipv4_mapped)
        if a in NAT64:  # a translator's way to that IPv4 address
            return _carried("NAT64 for", ipaddress.IPv4Address(int(a) & 0xFFFFFFFF))
        if a in NAT64_LOCAL:
            return "a local-use NAT64 address"
        for kind, inner in (("6to4 around", a.sixtofour), *(("Teredo around", t) for t in a.teredo or ())):
            why = _carried(kind, inner) if inner is not None else None
            if why:
                return why
        if a.is_multicast or a.is_reserved or a.is_site_local or not a.is_global:
            return "not globally routable"
        return None
    if a.is_multicast or not a.is_global:
        return "not globally routable"
    return None


def _carried(kind: str, inner: ipaddress.IPv4Address) -> str | None:
    why = refusal(str(inner))
    return f"{kind} {inner}, which is {why}" if why else None


def _literal(host: str):
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _resolve(host: str, port: int) -> list[tuple]:
    """(family, socket address) of every address ``host`` has, in the order
    connecting tries them."""
    return [(a[0], a[4]) for a in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def _refused(host: str, targets: list[tuple]) -> str | None:
    """Why ``host``, with these addresses, may not be called (words), or None."""
    if _literal(host) is not None:
        why = refusal(host)
        return f"{host} is {why}" if why else None
    for _, sockaddr in targets:
        why = refusal(sockaddr[0].split("%")[0])
        if why:
            return f"{host} resolves to {sockaddr[0]}, {why}"
    return None


def host_refusal(host: str) -> str | None:
    """When a URL is given: why its host may not be called, or None (also for a
    name that does not resolve now: it is checked again at each delivery)."""
    if private_allowed():
        return None
    if _literal(host) is not None:
        return _refused(host, [])
    try:
        targets = _resolve(host, 0)
    except (OSError, UnicodeError):
        return None
    return _refused(host, targets)


def post(url: str, body: bytes, headers: dict, timeout: float = 15) -> int:
    """POST ``body`` to ``url`` and return the answer's status, connecting only to
    addresses the guard lets through (WebhookRefused otherwise). A name that does
    not resolve, or a connection that fails, raises OSError: a failure worth
    another try later."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if not private_allowed() and _literal(host) is not None and _refused(host, []):
        raise WebhookRefused(_refused(host, []))  # before any look-up
    targets = _resolve(host, port)
    why = None if private_allowed() else _refused(host, targets)
    if why:
        raise WebhookRefused(why)

    def connect(_address, conn_timeout=timeout, source_address=None):
        # to the addresses just checked: never a second look-up of the name
        error: OSError = OSError(f"{host} has no address")
        for family, sockaddr in targets:
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                sock.settimeout(conn_timeout)
                sock.connect(sockaddr)
                return sock
            except OSError as err:
                sock.close()
                error = err
        raise error

    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = kind(host, port, timeout=timeout)  # the Host header and the TLS name are the URL's
    # http.client opens its socket through this attribute (HTTPSConnection then wraps
    # it in TLS, verified for the URL's host): the one place a look-up would happen
    conn._create_connection = connect
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body=body, headers=headers)
        answer = conn.getresponse()
        answer.read(64 * 1024)  # (what the receiver says is of no use: a little, then close)
        return answer.status
    finally:
        conn.close()
