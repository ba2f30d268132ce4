"""Fair deals: the seats' entropy, and the seed it makes with the referee's secret part.

No party alone chooses a deal, the referee included. The referee draws its
secret part and publishes its commitment (SHA-256 of the secret part) before any
seat contributes; each seat may add a contribution of its own (``entropy``),
hidden from everyone until the game's first event records them all; the seed
every shuffle draws from (referee/rng.py) is then ``seed(secret, contributions)``.
The secret part is revealed at the end, so anyone can recompute the seed and
re-deal every hand (docs/log-format.md states the derivation exactly, for
auditors writing their own). A league's lots come from the same function: its
own secret part and its players' contributions, in the order its log has them.

The encoding is length-prefixed, so no two different lists of contributions (or
secret parts) hash the same input: ``["ab", null]`` is not ``["a", "b"]`` nor
``["ab"]``.
"""

from __future__ import annotations

import hashlib
import unicodedata

from referee.errors import MalformedMove

# What a contribution may be: 1 to 256 characters (Unicode code points), each a
# letter, a mark, a number, a punctuation mark, a symbol, or the space (U+0020):
# nothing that hides (controls, format characters, unassigned code points) or
# breaks a line, so a contribution reads the same in every log and every tool.
MAX_LENGTH = 256
KINDS = ("L", "M", "N", "P", "S")
# The derivation's first bytes: it names what the hash is for and its version.
TAG = b"castle-referee/seed/v1\n"


def fit(ch: str) -> bool:
    """Whether a contribution may hold ``ch``."""
    return ch == " " or unicodedata.category(ch)[0] in KINDS


def check(value, field: str) -> str:
    """``value`` as given when it is a contribution a seat may make, else 400
    naming ``field`` (``players[1].entropy``, ``entropy``)."""
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_LENGTH:
        raise MalformedMove(f"entropy is a string of 1 to {MAX_LENGTH} characters", field=field)
    bad = next((ch for ch in value if not fit(ch)), None)
    if bad is not None:
        raise MalformedMove(f"entropy holds letters, marks, numbers, punctuation, symbols and the space only, "
                            f"and this one holds U+{ord(bad):04X}", field=field)
    return value


def recorded(contributions, seats: int) -> bool:
    """Whether a first event's ``contributions`` has the shape the referee writes:
    one entry a seat, each null or a string of 1 to 256 characters that UTF-8 can
    write. (Which characters are letters depends on the Unicode version; an audit
    years later checks the shape alone.)"""
    if not isinstance(contributions, list) or len(contributions) != seats:
        return False
    for c in contributions:
        if c is None:
            continue
        if not isinstance(c, str) or not 1 <= len(c) <= MAX_LENGTH:
            return False
        try:
            c.encode()
        except UnicodeEncodeError:  # a lone surrogate
            return False
    return True


def _bytes(text: str) -> bytes:
    data = text.encode()
    return len(data).to_bytes(4, "big") + data


def seed(secret: str, contributions: list) -> str:
    """The seed every shuffle draws from: lowercase hex of SHA-256 over TAG, the
    secret part (its UTF-8 length as 4 bytes big-endian, then its UTF-8 bytes), the
    number of contributions (4 bytes big-endian), then each in order: 0x00 for
    none, else 0x01 and its UTF-8 length and bytes as the secret part's."""
    parts = [TAG, _bytes(secret), len(contributions).to_bytes(4, "big")]
    for c in contributions:
        parts.append(b"\x00" if c is None else b"\x01" + _bytes(c))
    return hashlib.sha256(b"".join(parts)).hexdigest()


def created_part(contributions: list | None, stacked: bool, seats: int) -> dict:
    """What the first event says of the contributions: ``{"contributions": [...]}``,
    one a seat, for a game that takes them; nothing for a game dealt from its seed
    alone (``contributions`` None: a stacked game, a game from before them)."""
    if contributions is None:
        return {}
    if stacked:
        raise MalformedMove("a game dealt from a given seed or deck takes no entropy", field="players")
    if not recorded(contributions, seats):
        raise MalformedMove(f"contributions are one a seat, each null or 1 to {MAX_LENGTH} characters",
                            field="players")
    return {"contributions": list(contributions)}


def dealing(kept: str | None, contributions) -> str | None:
    """The seed the shuffles draw from, given what the referee keeps (``kept``): in a
    game of contributions the secret part, from which (with them) the seed derives;
    in any other the seed itself. None (a seed not yet revealed) stays None."""
    if kept is None or contributions is None:
        return kept
    return seed(kept, list(contributions))


def reveal(kept: str, contributions) -> dict:
    """What the referee's last event reveals (beside the salt key): the seed and,
    in a game of contributions, the secret part it was derived from."""
    if contributions is None:
        return {"seed": kept}
    return {"seed": dealing(kept, contributions), "secret": kept}
