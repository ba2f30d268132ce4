"""How play moves on by itself between the players' answers.

Everything the referee does without a choice to make (the next turn, the draw
up to four, opening a reaction window and asking the next seat, burying the
dead and promoting the living, discarding level cards, ending a turn) is
written as explicit events by ``advance``, right after the move or referee step
that made it due. ``advance`` stops where a seat must answer or a random step
is owed.
"""

from __future__ import annotations

from referee.events import Draft
from referee.games.king_of_the_castle.cards import CATALOGUE, LETTERS, lettered
from referee.games.king_of_the_castle.evolve import APPLY
from referee.games.king_of_the_castle.kingdom import find_man, succession
from referee.games.king_of_the_castle.plays import plays


def clone(state):
    return state.fork()


class Script:
    """Drafts written against a scratch copy of the state, each applied as it is
    written so the next one is decided on the position it leaves (``copied``
    False: on the state itself, which its caller gives up, ``Engine.play``).

    The draft and the state are handed the same payload, uncopied: applying an
    event never changes its payload and copies every list or dict of it that the
    state keeps (evolve.py), but for ``game-ended``'s result, which nothing changes
    afterwards. (A copy of each payload was a fifth of a King of the Castle replay.)"""

    def __init__(self, state, copied: bool = True):
        self.state = clone(state) if copied else state
        self.drafts: list[Draft] = []

    def emit(self, kind: str, payload: dict) -> None:
        self.drafts.append(Draft(kind, payload))
        APPLY[kind](self.state, payload)


def due(state) -> str | None:
    if state.result is not None:
        return None
    if state.stage == "deal":
        return "deal"
    if state.stage == "scoring":
        return "score"
    if state.window is None and state.random_pending is not None:
        return "steal" if state.random_pending["kind"] == "steal" else "random-discard"
    if state.owed is not None and state.owed["n"] > 0 and not state.event_deck and state.event_discard \
            and state.window is None and state.threat is None:
        return "reshuffle"
    return None


def ask_queue(state, actor: int) -> list[int]:
    """The other seats in turn order from the actor's left, less standing passes;
    with the house rule ``react_to_own_card`` the actor too, asked last."""
    n = state.players
    last = n + 1 if state.options["react_to_own_card"] else n
    return [s for s in ((actor + i) % n for i in range(1, last)) if state.standing[s] != "pass"]


def _men(state, letters: list[str]) -> list[dict]:
    out = []
    for m in letters:
        post, ci = find_man(state, m)
        out.append({"man": m, "post": post, "castle": None if ci is None else ci + 1})
    return out


def advance(script: Script) -> None:
    state, emit = script.state, script.emit
    while True:
        if state.result is not None or due(state) is not None:
            return
        if state.stage == "next":
            emit("turn-began", {"seat": state.next_seat})
            continue
        if state.stage != "play":
            return
        w = state.window
        if w is not None:
            asked = w["queue"][0]
            if state.standing[asked] == "pass":
                emit("declined", {"seat": asked, "standing": True})
                continue
            return
        t = state.threat
        if t is not None:
            if t["deaths"]:
                if "death" not in t["asked"]:
                    emit("window-opened", {"kind": "death", "queue": ask_queue(state, t["actor"]),
                                           "at_stake": _men(state, t["deaths"])})
                    continue
                heir = t["heir"] - 1 if t["heir"] is not None else None
                emit("died", {"men": _men(state, t["deaths"])})
                for kind, payload in succession(state.king, state.castles, state.personality_deck, heir):
                    emit(kind, payload)
                continue
            if "discard" not in t["asked"]:
                emit("window-opened", {"kind": "discard", "queue": ask_queue(state, t["actor"]),
                                       "at_stake": [dict(d) for d in t["discards"]]})
                continue
            emit("levels-discarded", {"cards": [dict(d) for d in t["discards"]]})
            continue
        if state.owed is not None:
            o = state.owed
            k = min(o["n"], len(state.event_deck))
            if k:
                emit("drew", {"seat": o["seat"], "count": k, "cards": state.event_deck[:k],
                              "purpose": o["purpose"]})
                continue
            emit("draw-short", {"seat": o["seat"], "missing": o["n"]})
            continue
        if state.tasks:
            top = state.tasks[0]
            if top["kind"] == "sudden" and not any(plays(state, state.turn, c) for c in set(top["cards"])):
                emit("fizzled", {"seat": state.turn, "cards": list(top["cards"])})
                continue
            return
        if len(state.hands[state.turn]) > 3:
            return
        emit("turn-ended", {"seat": state.turn})


def deal(state, rng) -> dict:
    """The ``dealt`` event: the kingdom, the decks, the hands and (but for
    ``choose``) the squires. Cards go one at a time from the dealer's left."""
    opts, n = state.options, state.players
    if opts.get("personality_deck"):
        people = list(opts["personality_deck"])
    elif opts["personality_order"] == "alphabetical":
        people = list(LETTERS)
    else:
        people = rng.shuffle(LETTERS)
    order = [(opts["first_dealer"] + 1 + i) % n for i in range(n)]
    given = opts.get("event_deck")
    squires = set_aside = None
    if opts["squires"] == "letters":
        if given:
            cards = lettered(given)
        else:
            letter_of = [LETTERS[i % 26] for i in range(78)]
            cards = [(CATALOGUE[i], letter_of[i]) for i in rng.shuffle(range(78))]
        held: dict[int, list] = {s: [] for s in order}
        returned = []
        for _ in range(3):
            for s in order:
                held[s].append(cards.pop(0))
        for s in order:
            kept = []
            for card in held[s]:
                (returned if card[1] in {c[1] for c in kept} else kept).append(card)
            held[s] = kept
        while any(len(held[s]) < 3 for s in order):
            for s in order:
                if len(held[s]) < 3:
                    card = cards.pop(0)
                    (returned if card[1] in {c[1] for c in held[s]} else held[s]).append(card)
        rest = [c[0] for c in cards + returned]
        deck = rest if given else rng.shuffle(rest)
        squires = {str(s): sorted(c[1] for c in held[s]) for s in order}
        set_aside = {str(s): [c[0] for c in held[s]] for s in order}
    else:
        deck = list(given) if given else rng.shuffle(CATALOGUE)
        if opts["squires"] == "random":
            squires = {str(s): sorted(rng.sample(LETTERS, 3)) for s in range(n)}
    hands: dict[str, list] = {str(s): [] for s in range(n)}
    for _ in range(3):
        for s in order:
            hands[str(s)].append(deck.pop(0))
    return {"king": people[0], "castles": [people[1:4], people[4:7], people[7:10]],
            "personality_deck": people[10:], "event_deck": deck, "hands": hands,
            "squires": squires, "set_aside": set_aside,
            "alphabetical": opts["personality_order"] == "alphabetical"}
