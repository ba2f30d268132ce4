"""Each seat's own page link, carried by every notice:
``{REFEREE_PUBLIC_URL}/games/{id}#token=LINK``.

A seat's token is stored only as a hash, so the referee cannot put it in a link.
Instead each seat has a second token of its own, its **link token**, derived
(like a reply address's key, referee/mail/sending.py ``reply_key``) as an
HMAC-SHA256 keyed by the mail secret over the game, the seat and the hashes of
the seat's own tokens. Its hash is registered in the game's ``tokens`` beside the
seat's token (and named in the record's private ``links``), so it is a seat token
like any other: it plays and sees as that seat in the API and on the page, and
nowhere else. The referee can derive it again at any time from the record and the
secret, so nothing secret is ever stored in clear (not even in the outbox: the
link is written into each e-mail or webhook as it is sent).

Handing the seat to someone else (referee/seats.py) drops every hash of the seat,
the link's with them, and registers the new player's: the old link stops working
at once, like the old token. A notice goes only to its own seat's channels, so a
link never reaches another seat, the spectators or the organiser (their notices
carry the game's page without a token).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

from referee.mail.secret import mail_secret

# Where players reach the referee's pages: what `referee serve` binds unless set
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"


def public_url() -> str:
    return (os.environ.get("REFEREE_PUBLIC_URL") or DEFAULT_PUBLIC_URL).rstrip("/")


def page(game_id: str) -> str:
    """The game's page, as anyone may open it."""
    return f"{public_url()}/games/{game_id}"


def league_page(league_id: str) -> str:
    """A league's page, as anyone may open it (its standings notices link here)."""
    return f"{public_url()}/leagues/{league_id}"


def derive(secret: bytes, game_id: str, seat: int, held: list[str]) -> str:
    """The link token of ``seat`` holding the token hashes ``held``."""
    msg = f"link:{game_id}.{seat}.{','.join(sorted(held))}".encode()
    return base64.urlsafe_b64encode(hmac.new(secret, msg, hashlib.sha256).digest()[:24]).decode()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def register(service, game_id: str, tokens: dict, links: dict, seat: int) -> None:
    """Give ``seat`` a link token derived from the token hashes it holds in
    ``tokens`` (its link's old hash, if any, left out and dropped): its hash goes
    into ``tokens`` and ``links`` (both changed in place; the caller writes them)."""
    old = links.pop(str(seat), None)
    if old is not None and tokens.get(old) == seat:
        del tokens[old]
    held = [h for h, who in tokens.items() if who == seat]
    if not held:  # a bot's seat: nobody to link
        return
    link_hash = _hash(derive(mail_secret(service), game_id, seat, held))
    tokens[link_hash] = seat
    links[str(seat)] = link_hash


def for_new_game(service, game_id: str, tokens: dict) -> dict:
    """At creation: every person's seat gets its link (``tokens`` gains their
    hashes); returns the record's private ``links`` (seat -> the link's hash)."""
    links: dict = {}
    for seat in sorted({who for who in tokens.values() if isinstance(who, int)}):
        register(service, game_id, tokens, links, seat)
    return links


def token_of(service, rec, seat: int) -> str | None:
    """The seat's link token, derived again; None when the seat has none (a bot,
    a game from before links) or the mail secret has changed since."""
    link_hash = rec.extra.get("links", {}).get(str(seat))
    if link_hash is None or rec.tokens.get(link_hash) != seat:
        return None
    held = [h for h, who in rec.tokens.items() if who == seat and h != link_hash]
    token = derive(mail_secret(service), rec.id, seat, held)
    return token if hmac.compare_digest(_hash(token), link_hash) else None


def seat_page(service, rec, seat: int | None) -> str:
    """The page a notice links to: the seat's own (playing as it) when it has a
    link token, else the game's page as anyone sees it."""
    token = token_of(service, rec, seat) if isinstance(seat, int) and seat >= 0 else None
    return page(rec.id) + (f"#token={token}" if token else "")
