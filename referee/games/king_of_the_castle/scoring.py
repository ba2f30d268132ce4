"""The scoring table at the end: what each post is worth, and who wins."""

from __future__ import annotations

from referee.games.king_of_the_castle.kingdom import attribute_level, castle_level, largest


def table(state) -> list[dict]:
    """One line per man in a post: {man, post, castle, points, bonus}."""
    castles = state.castles
    # The largest castle is found by the text's own tie rule, the leftmost of the
    # tied castles counting as highest, at level 0 too: the throne passes to its
    # Lord by that rule, and so does the Lord's +3.
    big = largest(castles)
    if not state.zero_level_lord_bonus:  # a game created before that ruling (engine 2)
        big = big if big is not None and castle_level(castles[big]) > 0 else None
    # The Seneschal's and the Master at Arms' bonuses go to the castles holding the
    # most of their attribute, and only if it has some at all: with no Prestige
    # anywhere no castle is "most prestigious". A tie at the top is the house
    # rule ``bonus_ties``'s: the leftmost castle's man, every tied castle's, or none.
    ties = state.options["bonus_ties"]
    best = {"lord": {big}, "seneschal": top(castles, "prestige", ties), "master": top(castles, "defence", ties)}
    lines = []
    if state.king is not None:
        bonus = 2 * sum(1 for c in castles if castle_level(c) >= 6)
        lines.append({"man": state.king, "post": "king", "castle": None, "points": 12 + bonus, "bonus": bonus})
    for i, c in enumerate(castles):
        for post, base, extra in (("lord", 6, 3), ("seneschal", 4, 2), ("master", 2, 1)):
            if c[post] is not None:
                bonus = extra if i in best[post] else 0
                lines.append({"man": c[post], "post": post, "castle": i + 1,
                              "points": base + bonus, "bonus": bonus})
    return lines


def top(castles: list[dict], attribute: str, ties: str) -> set[int]:
    """The castles whose post for ``attribute`` earns its bonus: those with the
    most of it (none if no castle has any), a tie settled by ``ties``."""
    levels = [attribute_level(c, attribute) for c in castles]
    most = max(levels)
    tied = [i for i, level in enumerate(levels) if level == most]
    if most == 0 or (len(tied) > 1 and ties == "none"):
        return set()
    return set(tied) if ties == "all" else {tied[0]}


def result(state) -> dict:
    lines = table(state)
    worth = {line["man"]: line["points"] for line in lines}
    scores = [sum(worth.get(letter, 0) for letter in state.squires[s]) for s in range(state.players)]
    best = max(scores)
    winners = [s for s in range(state.players) if scores[s] == best]
    if len(winners) == 1:
        reason = f"seat {winners[0]} wins with {best} points"
    else:
        reason = f"a draw: seats {', '.join(map(str, winners))} share the win with {best} points"
    return {"winners": winners, "reason": reason, "scores": scores,
            "squires": [list(s) for s in state.squires], "table": lines}
