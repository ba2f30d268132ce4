"""King of Danger in words: a position for a post or an e-mail, an event in a line."""

from __future__ import annotations

from referee.events import Event
from referee.games.king_of_danger.cards import KING_NAMES

_BY = {"king-of-danger": "the King of Danger", "king-condition": "a King whose condition holds",
       "highest": "the highest card"}


def _cards(cards) -> str:
    return " ".join(c or "--" for c in cards) or "(none)"


def _row(names: list[str], values: list) -> str:
    return " | ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))


def render(view: dict) -> str:
    from referee.narration import left_line, named  # for the words only: no replay (~0.5 ms)

    names = view["players"]
    lines = [f"King of Danger: hand {view['hand_number']}, dealer {names[view['dealer']]},"
             f" target {view['target']}"
             + (", trackers back to 3 each hand" if view.get("trackers_between_hands") == "reset" else "")]
    lines.append(f"Scores:   {_row(names, view['scores'])}")
    lines.append(f"Trackers: {_row(names, view['trackers'])}")
    lines += left_line(view.get("left"), names)
    if view["result"]:
        winners = ", ".join(names[s] for s in view["result"]["winners"])
        lines.append(f"Game over: {winners} won ({named(view['result']['reason'], names)})")
        return "\n".join(lines)
    if view["phase"] != "play":
        lines.append(f"Waiting for the referee ({view['phase']})")
        return "\n".join(lines)
    if view["leftovers"]:
        lines.append(f"Set aside this hand: {_cards(view['leftovers'])}")
    if view["played"]:
        lines.append(f"Played this hand: {_cards(view['played'])}")
    if "face_up" in view:
        for seat, up in enumerate(view["face_up"]):
            covered = "".join("*" if c else "." for c in view["covered"][seat])
            lines.append(f"{names[seat]}'s table: {_cards(up)}  (face down beneath: {covered})")
        oblige = ("only cards in the hand" if view.get("follow_suit", "hand") == "hand"
                  else "cards in the hand and face up on the table")
        lines.append(f"Follow suit: {oblige} oblige")
    trick = view["trick"]
    shown = ", ".join(f"{names[s]} {c}" for s, c in trick["cards"]) or "no card yet"
    suit = f"{trick['suit']} trick" if trick["suit"] else "suit not set"
    lines.append(f"Trick {len(view['tricks']) + 1} ({suit}), led by {names[view['leader']]}: {shown}")
    if "hand" in view:
        lines.append(f"Your hand: {_cards(view['hand'])}")
    if "hands" in view:
        for seat, hand in enumerate(view["hands"]):
            lines.append(f"{names[seat]}'s hand: {_cards(hand)}")
    if view["to_act"]:
        lines.append(f"To play: {', '.join(names[s] for s in view['to_act'])}")
    return "\n".join(lines)


def describe(event: Event) -> str:
    p = event.payload
    if event.type == "hand-dealt":
        aside = f", {_cards(p['leftovers'])} set aside" if p["leftovers"] else ""
        return f"referee: hand {p['hand']} dealt by seat {p['dealer']}{aside}"
    if event.type == "card-played":
        line = f"seat {p['seat']} plays {p['card']}"
        if p["card"] in KING_NAMES:
            line += f" ({KING_NAMES[p['card']]})"
        if "suit" in p:
            line += f", naming {p['suit']}"
        if "revealed" in p:
            line += f", turning up {p['revealed']}"
        return line
    if event.type == "trick-won":
        return (f"seat {p['winner']} wins trick {p['trick']} ({p['suit']}) with"
                f" {_BY[p['by']]}; trackers {' '.join(map(str, p['trackers']))}")
    if event.type == "trick-set-aside":
        return f"trick {p['trick']} was all Kings: set aside, seat {p['leader']} leads again"
    if event.type == "hand-scored":
        return (f"referee: hand {p['hand']} scored, trackers {' '.join(map(str, p['trackers']))},"
                f" scores {' '.join(map(str, p['scores']))}")
    if event.type == "game-ended":
        return f"referee: game over, {p['result']['reason']}"
    if "move" in p:
        return f"seat {event.actor}: {p['move']['type']}"
    return f"{event.actor}: {event.type}"
