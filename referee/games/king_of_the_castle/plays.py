"""Which card plays the rules allow, and what each one threatens.

``check_play`` either refuses a play (``IllegalMove`` naming the rule) or says
what it does: the men it would kill, the level cards it would discard, the heir
of a Beneficial Assassination. ``plays`` lists every allowed play of a card.
"""

from __future__ import annotations

from itertools import combinations

from referee.games.base import IllegalMove
from referee.games.king_of_the_castle.cards import (
    ATTRIBUTES,
    CASTLE_DEATHS,
    LEVEL_CARDS,
    POSTS,
    REACTIONS,
    REMOVALS,
)
from referee.games.king_of_the_castle.kingdom import attribute_level, find_man
from referee.games.king_of_the_castle.notation import PLAY_FIELDS


def _top(castle: dict, attribute: str, ci: int) -> list[dict]:
    stack = castle[attribute]
    return [{"castle": ci + 1, "attribute": attribute, "card": stack[-1]}] if stack else []


def _man(state, target: str, castle: int | None) -> str:
    """The letter of the man a target names (a post, with its castle, or a letter)."""
    if target == "king":
        man = state.king
    elif target in POSTS:
        man = state.castles[castle][target]
    else:
        man = target if find_man(state, target) else None
    if man is None:
        raise IllegalMove("no-such-man", f"no man holds {target}"
                          + (f" in castle {castle + 1}" if target in POSTS else ""))
    return man


def _need_king(state) -> str:
    if state.king is None:
        raise IllegalMove("no-king", "the throne is empty")
    return state.king


def level_fits(castle: dict, card: str) -> bool:
    attribute, level = LEVEL_CARDS[card]
    return attribute_level(castle, attribute) < level


def check_play(state, seat: int, move: dict) -> dict:
    """What the play does, as facts for the ``played`` event; or IllegalMove."""
    card = move["card"]
    ci = move["castle"] - 1 if "castle" in move else None
    castle = state.castles[ci] if ci is not None else None
    if card in REACTIONS:
        raise IllegalMove("reaction-only", f"{card} is played only in answer to another player's card")
    if card == "peaceful-death":
        return {"deaths": [_need_king(state)]}
    if card == "death-by-misadventure":
        return {"deaths": [_man(state, move["targets"][0], ci)]}
    if card == "beneficial-assassination":
        king = _need_king(state)
        if castle["lord"] is None:
            raise IllegalMove("no-such-man", f"castle {ci + 1} has no Lord to crown")
        return {"deaths": [king], "heir": ci + 1}
    if card in CASTLE_DEATHS:
        post, attribute = CASTLE_DEATHS[card]
        man = _man(state, post, ci)
        return {"deaths": [man], "discards": _top(castle, attribute, ci) if attribute else []}
    if card == "plague":
        men = [_man(state, t, ci) for t in move["targets"]]
        for m in men:
            where = find_man(state, m)
            if where[1] != ci:
                raise IllegalMove("same-castle", f"{m} is not a man of castle {ci + 1}")
        if len(set(men)) != 2:
            raise IllegalMove("no-such-man", "plague kills two different men")
        return {"deaths": men, "discards": _top(castle, "domain", ci)}
    if card == "mysterious-vanishings":
        men = [castle[p] for p in POSTS if castle[p]]
        if not men:
            raise IllegalMove("no-such-man", f"castle {ci + 1} has no men left")
        return {"deaths": men}
    if card in LEVEL_CARDS:
        if not level_fits(castle, card):
            raise IllegalMove("level-too-low", f"{card} cannot cover the {LEVEL_CARDS[card][0]} "
                              f"level {attribute_level(castle, LEVEL_CARDS[card][0])} of castle {ci + 1}")
        return {}
    if card in REMOVALS or card == "state-of-disrepair":
        attributes, how = REMOVALS.get(card, ((move.get("attribute"),), "top"))
        discards = []
        for a in attributes:
            if how == "all":
                discards += [{"castle": ci + 1, "attribute": a, "card": c} for c in reversed(castle[a])]
            else:
                discards += _top(castle, a, ci)
        if not discards:
            raise IllegalMove("nothing-to-remove", f"castle {ci + 1} has no such level to remove")
        return {"discards": discards}
    if card == "timely-repairs":
        take = move["take"]
        if take not in LEVEL_CARDS:
            raise IllegalMove("not-a-level-card", f"{take} is not a castle attribute card")
        if take not in state.event_discard:
            raise IllegalMove("not-in-discard", f"no {take} in the discard pile")
        if not level_fits(castle, take):
            raise IllegalMove("level-too-low", f"{take} cannot go on castle {ci + 1}")
        return {}
    if card in ("unexpected-loss", "targeted-theft"):
        target = move["seat"]
        if target >= state.players:
            raise IllegalMove("no-such-seat", f"there is no seat {target}")
        if target == seat:
            raise IllegalMove("other-player", "pick another player")
        if not state.hands[target]:
            raise IllegalMove("empty-hand", f"seat {target} holds no card")
        return {}
    if card == "recycle":
        if move["take"] not in state.event_discard:
            raise IllegalMove("not-in-discard", f"no {move['take']} in the discard pile")
        return {}
    if card == "sudden-changes":
        return {}
    raise AssertionError(card)  # every card is handled above


def candidates(state, seat: int, card: str) -> list[dict]:
    """Every well-formed play of ``card`` worth checking (canonical forms)."""
    fields = PLAY_FIELDS[card]
    base = {"type": "play", "card": card}
    if card == "death-by-misadventure":
        out = [{**base, "targets": ["king"]}]
        out += [{**base, "castle": c, "targets": [p]} for c in (1, 2, 3) for p in POSTS]
        return out
    if card == "plague":
        return [{**base, "castle": c, "targets": list(pair)}
                for c in (1, 2, 3) for pair in combinations(POSTS, 2)]
    out = [dict(base)]
    if "castle" in fields:
        out = [{**m, "castle": c} for m in out for c in (1, 2, 3)]
    if "attribute" in fields:
        out = [{**m, "attribute": a} for m in out for a in ATTRIBUTES]
    if "take" in fields:
        names = sorted(set(state.event_discard))
        out = [{**m, "take": t} for m in out for t in names]
    if "seat" in fields:
        out = [{**m, "seat": s} for m in out for s in range(state.players) if s != seat]
    order = ("type", "card", "castle", "targets", "attribute", "take", "seat")
    return [{k: m[k] for k in order if k in m} for m in out]


def plays(state, seat: int, card: str) -> list[dict]:
    out = []
    for move in candidates(state, seat, card):
        try:
            check_play(state, seat, move)
        except IllegalMove:
            continue
        out.append(move)
    return out
