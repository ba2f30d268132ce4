"""Finding a player by name (``GET /v1/players?q=``): the players any of whose
names' words begins with the text asked, case aside ("ann" finds "Ann",
"Anna Smith" and "Mary-Ann"), a page at a time.

What it answers is what a profile shows anyway, and less: the id, the name and
whether the player is a bot. Never a token, its hash or a contact.

The store keeps an index of names, written with the player (referee/players/names.py):
one entry for each word of a name, the name folded (``str.casefold``) from that
word on, then the player's id. A search reads the entries that begin
with the folded text, in order, so it costs the entries it reads, never a look at
every player. A player whose name has two words that begin with the text (``Ann
Annable``) is found once, by its first such word. The cursor of the next page is
the last entry read, opaque to the client.
"""

from __future__ import annotations

import base64
import binascii

from referee.games.base import MalformedMove
from referee.players.names import SEP, WIDTH, fold, starts
from referee.players.store import players_of

PAGE = 20  # players on a page by default
MAX_PAGE = 50  # the most a client may ask for
READ = 200  # entries read at a time
MOST_READ = 2000  # entries one request reads at most: then its page ends early, with a cursor


def _first(folded: str, text: str) -> int | None:
    """Where the first word of ``folded`` that begins with ``text`` begins (or 0
    when the whole name begins with it)."""
    if folded.startswith(text):
        return 0
    return next((i for i in starts(folded) if folded.startswith(text, i)), None)


def _cursor(entry: str) -> str:
    return base64.urlsafe_b64encode(entry.encode()).decode().rstrip("=")


def _entry(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise MalformedMove("after is the `next` of the page before", field="after") from None


def find(service, q, after: str | None = None, limit: int = PAGE) -> dict:
    """``{players: [{id, name, bot}], next}``: a page of the players found by ``q``
    (``next``: the cursor of the next page, null on the last)."""
    if not isinstance(q, str) or not q.strip() or len(q) > WIDTH:
        raise MalformedMove(f"q is the start of a word of the name: 1 to {WIDTH} characters", field="q")
    text = fold(q.strip())
    low = text
    if after is not None:
        low = _entry(after)
        if not low.startswith(text):
            raise MalformedMove("after is the `next` of the page before, asked with the same q", field="after")
    players = players_of(service)
    found: list[tuple[str, dict]] = []  # (its entry, the player as shown)
    read = 0
    while len(found) <= limit:
        if read >= MOST_READ:  # the page ends early; the next goes on after the last entry read
            return {"players": [p for _, p in found], "next": _cursor(low)}
        batch = players.names_after(low, text, READ)
        for entry in batch:
            read += 1
            low = entry
            key, _, pid = entry.rpartition(SEP)
            player = players.get(pid)
            if player is None or any(pid == p["id"] for _, p in found):
                continue
            folded = fold(player["name"])
            first = _first(folded, text)
            if first is None or folded[first:first + WIDTH] != key:
                continue  # found by an earlier word of its name
            found.append((entry, {"id": pid, "name": player["name"], "bot": player["bot"]}))
            if len(found) > limit:
                break
        if len(batch) < READ:
            break
    more = len(found) > limit
    return {"players": [p for _, p in found[:limit]], "next": _cursor(found[limit - 1][0]) if more else None}
