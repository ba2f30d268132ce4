"""The entries of the players' name index, which finding a player reads
(referee/players/finding.py): for each word of a name, the name folded
(``str.casefold``: case and such differences aside) from that word on, then ``SEP``
and the player's id. Both stores keep them in order, so the entries that begin
with a text are one range of the index."""

from __future__ import annotations

SEP = "\x01"  # after the folded name in an entry; no name holds a control character
WIDTH = 100  # the folded name kept from each word on (names are 1 to 100 characters)


def fold(text: str) -> str:
    return text.casefold()


def starts(folded: str) -> list[int]:
    """Where each word of a folded name begins: a letter or digit at the start or
    after anything else (a space, a hyphen, a dot)."""
    return [i for i, ch in enumerate(folded) if ch.isalnum() and (i == 0 or not folded[i - 1].isalnum())]


def entries(player_id: str, name: str) -> list[str]:
    """The index's entries of a player's name (the whole name's first, if it
    begins with no letter or digit)."""
    folded = fold(name)
    at = starts(folded)
    return sorted({folded[i:i + WIDTH] + SEP + player_id for i in ([0] + at)})
