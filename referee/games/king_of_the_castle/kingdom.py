"""The kingdom: castle levels, finding men, and the promotion chain after deaths."""

from __future__ import annotations

from referee.games.king_of_the_castle.cards import ATTRIBUTES, LEVEL_CARDS, POSTS


def new_castle(lord: str | None, seneschal: str | None, master: str | None) -> dict:
    return {"lord": lord, "seneschal": seneschal, "master": master,
            "domain": [], "prestige": [], "defence": []}


def attribute_level(castle: dict, attribute: str) -> int:
    stack = castle[attribute]
    return LEVEL_CARDS[stack[-1]][1] if stack else 0


def castle_level(castle: dict) -> int:
    return sum(attribute_level(castle, a) for a in ATTRIBUTES)


def leftmost_best(castles: list[dict], key, among=None) -> int | None:
    """Index of the castle with the highest ``key``; the leftmost wins a tie."""
    idx = [i for i in range(len(castles)) if among is None or among(castles[i])]
    if not idx:
        return None
    return max(idx, key=lambda i: (key(castles[i]), -i))


def largest(castles: list[dict], among=None) -> int | None:
    return leftmost_best(castles, castle_level, among)


def find_man(state, letter: str) -> tuple[str, int | None] | None:
    """(post, castle index or None for the King) of the man ``letter``, or None."""
    if state.king == letter:
        return "king", None
    for i, c in enumerate(state.castles):
        for p in POSTS:
            if c[p] == letter:
                return p, i
    return None


def man_at(state, post: str, castle: int | None) -> str | None:
    if post == "king":
        return state.king
    return state.castles[castle][post]


def succession(king, castles: list[dict], deck: list[str], heir: int | None) -> list[tuple[str, dict]]:
    """The events that fill the posts left empty by deaths: an empty throne takes
    the Lord of castle ``heir`` (Beneficial Assassination) or of the largest
    castle that has a Lord; in each castle the men below an empty post move up
    in order; empty posts left at the bottom take the personality deck's top
    cards, highest post first; a post the empty deck cannot fill is reported."""
    # worked out on a copy: the state's own stay as they are (only a crowned
    # Lord's castle changes here, and is copied then)
    castles = list(castles)
    deck = list(deck)
    out: list[tuple[str, dict]] = []
    if king is None:
        pick = heir if heir is not None and castles[heir]["lord"] else \
            largest(castles, among=lambda c: c["lord"] is not None)
        if pick is None:
            out.append(("succession-failed", {"post": "king", "castle": None}))
        else:
            man = castles[pick]["lord"]
            castles[pick] = {**castles[pick], "lord": None}
            out.append(("promoted", {"man": man, "post": "king", "castle": None,
                                     "from_post": "lord", "from_castle": pick + 1}))
    for i, c in enumerate(castles):
        if c["lord"] is not None and c["seneschal"] is not None and c["master"] is not None:
            continue  # every post held: nobody moves up, nobody is appointed
        men = [(p, c[p]) for p in POSTS if c[p] is not None]
        for j, post in enumerate(POSTS):
            if j < len(men) and men[j][0] != post:
                out.append(("promoted", {"man": men[j][1], "post": post, "castle": i + 1,
                                         "from_post": men[j][0], "from_castle": i + 1}))
        for post in POSTS[len(men):]:
            if deck:
                out.append(("appointed", {"man": deck.pop(0), "post": post, "castle": i + 1}))
            else:
                out.append(("succession-failed", {"post": post, "castle": i + 1}))
    return out
