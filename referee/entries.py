"""A seat's entry at a game's creation (and at a seat's replacement).

A player is given as a name (``"Ann"``) or as an object ``{"name": "Ann", ...}``
whose other keys belong to the features that registered them: contacts
(``email``, ``webhook``: referee/mail/contacts.py), bots (``bot``:
referee/bots). ``parse_players`` is the one place entries are read, so every key
is checked once and an unknown key is refused by name; the features register
where the referee is put together (referee/system.py), and this module names
none of them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from referee import entropy
from referee.errors import MalformedMove

# The bidirectional formatting characters (marks, embeddings, overrides, isolates):
# a name holding one can turn the text around it, in a subject, a table or a page.
BIDI_FORMATTING = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# A seat's own contribution to the seed (referee/entropy.py): any seat given at a
# game's creation may carry it, whatever else it is.
ENTROPY = "entropy"

# key -> checker(value, field) returning the value to keep (None: keep nothing).
# Each feature that reads a key of a player entry registers it (``register``)
# where the referee is put together (referee/system.py): contacts' ``email`` and
# ``webhook``, bots' ``bot``.
PLAYER_FIELDS: dict[str, Callable] = {}
# What a new game keeps of its entries beyond their names (see ``keep``).
KEEPERS: dict[str, Callable] = {}
# key -> resolve(value, field) -> the whole entry, taken from elsewhere: a seat
# given as ``{"player": ID}`` takes its name and contacts from that player's
# account (referee/players). Such an entry holds that key alone.
RESOLVERS: dict[str, Callable] = {}


# name -> on_tokens(service, game_id, tokens) -> a part of the record's extra: what a
# new game derives from its seats' token hashes once they are all known (each
# seat's page link, referee/mail/links.py); it may add hashes to ``tokens``.
ON_TOKENS: dict[str, Callable] = {}


def register_on_tokens(name: str, derive: Callable) -> None:
    ON_TOKENS.setdefault(name, derive)


def on_tokens(service, game_id: str, tokens: dict) -> dict:
    """Every registered derivation run on a new game's token hashes (changed in
    place); their parts of the record's extra, merged."""
    extra: dict = {}
    for derive in ON_TOKENS.values():
        extra |= derive(service, game_id, tokens)
    return extra


def register_resolver(key: str, resolve: Callable) -> None:
    """Let an entry be ``{key: value}`` alone, made whole by ``resolve(service,
    value, field)``: ``{"name", ...}`` plus ``token_hash`` (a token that acts for the
    seat as its own does) and any registered key."""
    RESOLVERS.setdefault(key, resolve)


def register(key: str, checker: Callable) -> None:
    """Let player entries carry ``key``, checked by ``checker(value, field)``."""
    PLAYER_FIELDS.setdefault(key, checker)


def register_keeper(name: str, keeper: Callable) -> None:
    """``keeper(entries, asked) -> (record_extra, {seat: answer fields}, answer
    fields)``: what a new game keeps privately beside its record and shows in the
    creation's answer, from the checked entries and what else creation was asked
    (``asked``: e.g. ``spectators``)."""
    KEEPERS.setdefault(name, keeper)


def keep(entries: list[dict], asked: dict) -> tuple[dict, dict[int, dict], dict]:
    """Every keeper's part, merged: the record's extra, each seat's answer fields,
    the answer's own fields."""
    extra: dict = {}
    seats: dict[int, dict] = {}
    answer: dict = {}
    for keeper in KEEPERS.values():
        e, s, a = keeper(entries, asked)
        extra |= e
        answer |= a
        for seat, shown in s.items():
            seats.setdefault(seat, {}).update(shown)
    return extra, seats, answer


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def parse_player(entry, index: int | None, service=None, where: str | None = None) -> dict:
    """One player entry as ``{"name": ..., <registered key>: value, ...}``; the name
    trimmed of spaces at its ends. ``where``: how refusals name the entry
    (``players[INDEX]`` by default; ``""`` for a body that is one player, as a
    seat's replacement is). ``service``: the one asking, for the resolvers."""
    where = f"players[{index}]" if where is None else where
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise MalformedMove("a player is a name or an object {name, email, webhook}", field=where or "body")
    if ENTROPY in entry and where:  # the seat's contribution to the seed, beside any seat given here
        given = entropy.check(entry[ENTROPY], _at(where, ENTROPY))
        out = parse_player({k: v for k, v in entry.items() if k != ENTROPY}, index, service, where)
        return {**out, ENTROPY: given}
    resolved = [key for key in entry if key in RESOLVERS]
    if resolved:
        key = resolved[0]
        if len(entry) != 1:
            raise MalformedMove(f"a seat given by {key} takes everything else from it: "
                                f"give {{{key!r}: ...}} alone", field=_at(where, sorted(set(entry) - {key})[0]))
        return RESOLVERS[key](service, entry[key], _at(where, key))
    name = entry.get("name")
    if isinstance(name, str):  # checked as given: trimming would hide a line break at an end
        name = check_name(name, _at(where, "name")).strip()
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise MalformedMove("a player's name is a string of 1 to 100 characters, not only spaces",
                            field=_at(where, "name"))
    out = {"name": name}
    for key, value in entry.items():
        if key == "name":
            continue
        checker = PLAYER_FIELDS.get(key)
        if checker is None:
            raise MalformedMove(f"unknown player field {key!r}; a player may have "
                                f"{', '.join(['name', *PLAYER_FIELDS, *RESOLVERS, *([ENTROPY] if where else [])])}",
                                field=_at(where, key))
        checked = checker(value, _at(where, key))
        if checked is not None:
            out[key] = checked
    return out


def unfit(ch: str) -> bool:
    """Whether a name may not hold ``ch``: a control character (Unicode category
    Cc: line breaks, NUL, escape...) or a bidirectional formatting character."""
    return ch in BIDI_FORMATTING or unicodedata.category(ch) == "Cc"


def check_name(name: str, field: str) -> str:
    """``name`` as given, or 400 naming ``field`` if it holds a character ``unfit``
    for a name: every name the referee takes (a player's, a seat's, a bot's, a
    league's) passes here, so none can break an e-mail header or turn a page's text."""
    bad = next((ch for ch in name if unfit(ch)), None)
    if bad is not None:
        raise MalformedMove(f"a name holds no control or bidirectional formatting characters, and this one "
                            f"holds U+{ord(bad):04X}", field=field)
    return name


def printable(text: str) -> str:
    """``text`` with every character ``unfit`` for a name made a space: for a name
    stored before ``check_name`` refused such characters, wherever it is written
    into one line (an e-mail's subject)."""
    return "".join(" " if unfit(ch) else ch for ch in text)


def same_name(a: str, b: str) -> bool:
    """Whether two names would read as one player's ("Ann" and " ann")."""
    return a.strip().casefold() == b.strip().casefold()


def check_unique(name: str, others: dict[int, str], field: str) -> None:
    """Refuse ``name`` if another seat (``others``: seat -> name) has it already:
    notices, pages and results speak of players by name, so two Anns would be one."""
    for seat, other in sorted(others.items()):
        if same_name(name, other):
            raise MalformedMove(f"{name!r} is already the name of seat {seat} ({other}); each player "
                                "needs a name of their own (names are compared without case and "
                                "spaces at the ends)", field=field)


def parse_players(players, service=None) -> list[dict]:
    """Every player entry checked: a list of ``{"name", ...}`` in seat order, no two
    with the same name (``service``: the one creating the game, for the resolvers)."""
    if not isinstance(players, list) or not 1 <= len(players) <= 16:
        raise MalformedMove("players must be a list of 1 to 16 names or objects", field="players")
    entries = [parse_player(p, i, service) for i, p in enumerate(players)]
    for i, entry in enumerate(entries):
        field = f"players[{i}].player" if entry.get("player") else f"players[{i}].name"
        check_unique(entry["name"], {j: e["name"] for j, e in enumerate(entries[:i])}, field)
    return entries
