"""The scoring table at the end: what each post is worth, and who wins."""

from __future__ import annotations

from referee.games.king_of_the_castle.kingdom import (
    attribute_level,
    best_defended,
    castle_level,
    largest,
    most_prestigious,
)


def table(state) -> list[dict]:
    """One line per man in a post: {man, post, castle, points, bonus}."""
    castles = state.castles
    # The largest castle is found by the text's own tie rule, the leftmost of the
    # tied castles counting as highest, at level 0 too: the throne passes to its
    # Lord by that rule, and so does the Lord's +3. The Seneschal's and the Master
    # at Arms' bonuses go to the most prestigious or best defended castle only if
    # it has some of that at all: with no Prestige anywhere no castle is "most
    # prestigious", and no Seneschal earns +2 (the leftmost of a tie still wins).
    big, grand, strong = largest(castles), most_prestigious(castles), best_defended(castles)
    if not state.zero_level_lord_bonus:  # a game created before that ruling (engine 2)
        big = big if big is not None and castle_level(castles[big]) > 0 else None
    grand = grand if grand is not None and attribute_level(castles[grand], "prestige") > 0 else None
    strong = strong if strong is not None and attribute_level(castles[strong], "defence") > 0 else None
    lines = []
    if state.king is not None:
        bonus = 2 * sum(1 for c in castles if castle_level(c) >= 6)
        lines.append({"man": state.king, "post": "king", "castle": None, "points": 12 + bonus, "bonus": bonus})
    for i, c in enumerate(castles):
        for post, base, extra, best in (("lord", 6, 3, big), ("seneschal", 4, 2, grand),
                                        ("master", 2, 1, strong)):
            if c[post] is not None:
                bonus = extra if i == best else 0
                lines.append({"man": c[post], "post": post, "castle": i + 1,
                              "points": base + bonus, "bonus": bonus})
    return lines


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
