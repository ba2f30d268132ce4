"""What each viewer may see: views, redacted events, text renderings."""

from __future__ import annotations

from referee.games.base import ADMIN, open_to_all
from referee.games.king_of_the_castle.cards import ATTRIBUTES, POSTS, SQUIRES
from referee.games.king_of_the_castle.kingdom import castle_level


def _sees_all(state, viewer) -> bool:
    return viewer == ADMIN or open_to_all(state)  # over and revealed: the log is open too


def view(state, viewer) -> dict:
    seat = viewer if isinstance(viewer, int) and not isinstance(viewer, bool) else None
    everything = _sees_all(state, viewer)
    out = {
        "stage": state.stage,
        "turn": state.turn,
        "first_player": state.first_player,
        "turns_taken": list(state.turns_taken),
        "ending": state.ending,
        "king": state.king,
        "castles": [{"castle": i + 1, **{p: c[p] for p in POSTS},
                     **{a: list(c[a]) for a in ATTRIBUTES}, "level": castle_level(c)}
                    for i, c in enumerate(state.castles)],
        "personality_deck_size": len(state.personality_deck),
        "personality_discard": list(state.personality_discard),
        "event_deck_size": len(state.event_deck),
        "event_discard_size": len(state.event_discard),
        "event_discard": list(state.event_discard),
        "hand_sizes": [len(h) for h in state.hands],
        "standing": list(state.standing),
        "tasks": [dict(t) for t in state.tasks],
        "window": None if state.window is None else
        {"kind": state.window["kind"], "asking": state.window["queue"][0]},
        "threat": None if state.threat is None else
        {k: state.threat[k] for k in ("actor", "deaths", "discards", "heir")},
        "drawing": None if state.owed is None else
        {k: state.owed[k] for k in ("seat", "n", "purpose")}
        | ({"got": list(state.owed["got"])} if state.owed["purpose"] == "sudden" else {}),
        "random_pending": state.random_pending,
        "squires_chosen": [s is not None for s in state.squires] if state.options["squires"] == "choose" else None,
        "stacked": state.stacked,
        "reactions": state.options["reactions"],
        "react_to_own_card": state.options["react_to_own_card"],
        "bonus_ties": state.options["bonus_ties"],
        "on_resign": state.options["on_resign"], "left": list(state.left),
        "result": state.result,
    }
    if state.options["personality_order"] == "alphabetical" or everything:
        out["personality_deck"] = list(state.personality_deck)
    if seat is not None and seat < state.players:
        out["seat"] = seat
        out["hand"] = list(state.hands[seat]) if state.hands else []
        out["squires"] = state.squires[seat]
        if state.set_aside:
            out["set_aside"] = list(state.set_aside[seat])
    if everything:
        out["hands"] = [list(h) for h in state.hands]
        out["all_squires"] = [s for s in state.squires]
        out["event_deck"] = list(state.event_deck)
        if state.set_aside:
            out["all_set_aside"] = [list(s) for s in state.set_aside]
    return out


def _own(d: dict | None, viewer) -> dict | None:
    if d is None:
        return None
    return {k: v for k, v in d.items() if k == str(viewer)}


def redact(event, viewer) -> dict:
    p = event.payload
    if viewer == ADMIN:
        return p
    kind = event.type
    if kind == "dealt":
        out = {"king": p["king"], "castles": p["castles"],
               "personality_deck_size": len(p["personality_deck"]),
               "event_deck_size": len(p["event_deck"]),
               "hand_sizes": {k: len(v) for k, v in p["hands"].items()},
               "hands": _own(p["hands"], viewer),
               "squires": _own(p["squires"], viewer),
               "set_aside": _own(p["set_aside"], viewer)}
        if event.payload.get("alphabetical"):
            out["personality_deck"] = p["personality_deck"]
        return out
    if kind == "squires-chosen" and p["seat"] != viewer:
        return {"seat": p["seat"]}
    if kind == "drew" and p["purpose"] == "hand" and p["seat"] != viewer:
        return {k: v for k, v in p.items() if k != "cards"}
    if kind == "reshuffled":
        return {"size": len(p["deck"])}
    if kind == "stolen" and viewer not in (p["from"], p["to"]):
        return {k: v for k, v in p.items() if k != "card"}
    return p


def _man(letter) -> str:
    return f"{SQUIRES[letter]} ({letter})" if letter else "(vacant)"


def render(state, viewer) -> str:
    from referee.narration import left_line, named  # for the words only: no replay (~0.5 ms)

    v = view(state, viewer)
    lines = [f"King: {_man(state.king)}"]
    for c in v["castles"]:
        lines.append(f"Castle {c['castle']} (level {c['level']}): Lord {_man(c['lord'])}, "
                     f"Seneschal {_man(c['seneschal'])}, Master at Arms {_man(c['master'])}")
        lines.append("  " + "; ".join(f"{a}: {' < '.join(c[a]) or '-'}" for a in ATTRIBUTES))
    lines.append(f"Personality deck: {v['personality_deck_size']} cards"
                 + (f" ({' '.join(v['personality_deck'])})" if v.get("personality_deck") else "")
                 + f"; dead: {' '.join(v['personality_discard']) or '-'}")
    lines.append(f"Event deck: {v['event_deck_size']} cards; discard pile ({v['event_discard_size']}): "
                 f"{', '.join(v['event_discard']) or '-'}")
    names = state.names
    lines.append("Hands: " + ", ".join(f"{names[s]} {n}" for s, n in enumerate(v["hand_sizes"])))
    lines += left_line(v.get("left"), names)
    if "hand" in v:
        lines.append(f"Your hand: {', '.join(v['hand']) or '-'}; your squires: "
                     f"{' '.join(v['squires']) if v['squires'] else 'not chosen yet'}")
    if state.stage == "choose":
        waiting = [names[s] for s in range(state.players) if state.squires[s] is None]
        lines.append(f"Choosing squires: waiting for {', '.join(waiting)}")
    if v["window"]:
        threat = v["threat"] or {}
        at_stake = ([_man(m) for m in threat.get("deaths", [])] if v["window"]["kind"] == "death"
                    else [f"{d['card']} of castle {d['castle']}" for d in threat.get("discards", [])])
        played_by = names[threat["actor"]] if "actor" in threat else "a player"
        lines.append(f"{played_by}'s card threatens {', '.join(at_stake)}: waiting for "
                     f"{names[v['window']['asking']]} to answer ({v['window']['kind']} threat: "
                     f"{'react lucky-escape' if v['window']['kind'] == 'death' else 'react not-that-bad'} or pass)")
    elif state.stage == "play" and state.turn is not None:
        lines.append(f"{names[state.turn]} to play (turn {state.turns_taken[state.turn] + 1})")
    if state.result:
        lines.append(f"Game over: {named(state.result['reason'], names)}; scores {state.result['scores']}")
    return "\n".join(lines)


def describe(event, fmt) -> str:
    p, kind = event.payload, event.type
    if kind == "squires-chosen":
        return f"seat {p['seat']} has chosen squires"
    if "move" in p:
        return f"seat {event.actor}: {fmt(p['move'])}"
    simple = {
        "dealt": lambda: f"the kingdom is dealt: King {p['king']}, castles {p['castles']}",
        "turn-began": lambda: f"seat {p['seat']}'s turn begins",
        "drew": lambda: f"seat {p['seat']} draws {p['count']}" + (f": {', '.join(p['cards'])}" if "cards" in p and p["purpose"] == "sudden" else ""),
        "draw-short": lambda: f"seat {p['seat']} cannot draw {p['missing']} more: no cards left",
        "reshuffled": lambda: "the discard pile is shuffled into a new event deck",
        "window-opened": lambda: f"the {p['kind']} may be answered; asking "
                                 + (", ".join(f"seat {q}" for q in p["queue"]) or "nobody"),
        "declined": lambda: f"seat {p['seat']} lets it pass" + (" (standing answer)" if p.get("standing") else ""),
        "died": lambda: "dies: " + ", ".join(f"{m['man']} ({m['post']})" for m in p["men"]),
        "promoted": lambda: f"{p['man']} becomes {p['post']}" + (f" of castle {p['castle']}" if p["castle"] else ""),
        "appointed": lambda: f"{p['man']} is appointed {p['post']} of castle {p['castle']}",
        "succession-failed": lambda: f"no one is left to fill the {p['post']}: the game ends after this round",
        "levels-discarded": lambda: "discarded: " + ", ".join(f"{d['card']} of castle {d['castle']}" for d in p["cards"]),
        "fizzled": lambda: f"seat {p['seat']} cannot play {', '.join(p['cards'])}: discarded",
        "stolen": lambda: f"seat {p['to']} takes a card from seat {p['from']}",
        "lost": lambda: f"seat {p['seat']} loses {p['card']}",
        "turn-ended": lambda: f"seat {p['seat']}'s turn ends",
        "game-ended": lambda: f"game over: {p['result']['reason']}",
    }
    return simple[kind]() if kind in simple else f"{event.actor}: {kind}"
