"""King's Keys positions and events as text, for posts, e-mails and replays."""

from __future__ import annotations

from referee.events import Event


def _cards(cards) -> str:
    return " ".join(cards) if cards else "-"


def _field(field) -> str:
    return " ".join("[" + " ".join(p) + "]" if len(p) > 1 else p[0] for p in field) or "-"


def render(view: dict, names: list[str]) -> str:
    from referee.narration import left_line, named  # for the words only: no replay (~0.5 ms)

    lines = [f"King's Keys, hand {view['hand_number']}"
             + (" (wild cards" + (", each for a card not held" if view.get("wild_stands_for")
                                  == "not-held" else "") + ")" if view["wild_cards"] else "")
             + (", a match may be left in the field" if view.get("match") == "optional" else "")
             + f", dealer {names[view['dealer']]}"]
    if view["result"]:
        r = view["result"]
        lines.append(f"Game over: {named(r['reason'], names)}")
    lines.append(f"Field: {_field(view['field'])}")
    if view["drawn"]:
        lines.append(f"Turned up from the pile, waiting for a choice: {view['drawn']}")
    lines.append(f"Draw pile: {view['pile_size']} cards")
    lines += left_line(view.get("left"), names)
    for s, name in enumerate(names):
        mark = " <- to play" if view["turn"] == s else ""
        lines.append(f"{name} (seat {s}): {view['totals'][s]} points, "
                     f"{view['hand_sizes'][s]} in hand, collected {_cards(view['collected'][s])}{mark}")
    if "hand" in view:
        lines.append(f"Your hand: {_cards(view['hand'])}")
    if "hands" in view:
        for s, h in enumerate(view["hands"]):
            lines.append(f"{names[s]}'s hand: {_cards(h)}")
    return "\n".join(lines)


def _took(p: dict) -> str:
    return f", taking {'+'.join(p['took'])}" if p["took"] else ", left in the field"


def describe(event: Event, fmt) -> str:
    p, t = event.payload, event.type
    if t == "dealt":
        return f"referee: hand {p['hand']} dealt by seat {p['dealer']}; field {_field(p['field'])}"
    if t == "hand-forfeited":
        return (f"referee: four of {', '.join(p['kinds'])} in the field: the deal is forfeit,"
                f" seat {p['dealer']} deals again")
    if t == "played":
        return f"seat {p['seat']}: {fmt(p['move'])}{_took(p)}" if "move" in p else \
            f"seat {p['seat']} played {p['card']}{_took(p)}"
    if t == "drawn":
        if p.get("choices"):
            return (f"seat {p['seat']} turned up {p['card']}, which could take "
                    + " or ".join("+".join(c) for c in p["choices"]))
        return f"seat {p['seat']} turned up {p['card']}{_took(p)}"
    if t == "chose":
        return (f"seat {p['seat']}: {p['card']} takes {'+'.join(p['took'])}" if p["took"]
                else f"seat {p['seat']}: {p['card']} is left in the field")
    if t == "hand-scored":
        return f"referee: hand {p['hand']} scored {p['points']}, totals {p['totals']}"
    if t == "game-ended":
        return f"referee: game over, {p['result']['reason']}"
    if "move" in p:
        return f"seat {event.actor}: {fmt(p['move'])}"
    return f"{event.actor}: {t}"
