"""The position as text for posts and e-mails, and one-line event descriptions.

Each seat sees its own half at the bottom (seat 1's diagram is seat 0's turned
half a turn round); spectators and the admin see seat 0's orientation.
"""

from __future__ import annotations

from referee.games.castle_danger import board

LEGEND = ("K King  Z Wizard  B Builder  C Cannon  ' fired  ? hidden  # wall  "
          "* fire  o portal  ~ river  : sand  . grass")
HOUSE_RULE_WORDS = {"fire_blocks_building": "walls may be built on fire",
                    "own_side_shots": "no shots on one's own side of the river"}
EDITION_TITLES = {"10th": "10th Anniversary edition", "3rd": "3rd edition"}


def _cell(view: dict, sq: str) -> str:
    letter = [c[0] for c in view["colours"]]
    piece = view["pieces"].get(sq)
    if piece:
        if piece["kind"] == "?":
            return f"{letter[piece['owner']]}?"
        mark = "?" if piece["hidden"] else ""
        fired = "'" if piece["fired"] else ""
        return f"{letter[piece['owner']]}{mark}{piece['kind']}{fired}"
    if sq in view["walls"]:  # on fire too, when fire does not block building
        return f"#*{letter[view['fire'][sq]]}" if sq in view["fire"] else "#"
    if sq in view["fire"]:
        return f"*{letter[view['fire'][sq]]}"
    if sq in view["portals"]:
        return "o"
    return {"river": "~", "sand": ":", "grass": "."}[board.terrain(sq)]


def _supply(view: dict, seat: int) -> str:
    s = view["supply"][seat]
    text = f"{view['colours'][seat].capitalize()}: Z {s['Z']}  B {s['B']}  C {s['C']}"
    if s["hidden_on_board"]:
        text += (f" (and {s['hidden_on_board']} hidden on the board)" if s["exact"]
                 else f" (less {s['hidden_on_board']} hidden on the board)")
    return text


def render(view: dict, names: list[str], viewer) -> str:
    from referee.narration import named  # for the words only: no replay (~0.5 ms)

    files = list(board.FILES)
    ranks = list(board.RANKS)[::-1]
    if viewer == 1:
        files, ranks = files[::-1], ranks[::-1]
    head = "    " + "".join(f"{f:<4}" for f in files).rstrip()
    title = f"Castle Danger, {EDITION_TITLES[view['edition']]}"
    if view["variant"] == "hidden-danger":
        title += ", Hidden Danger"
    lines = [title]
    # The house rules a game departs from the default by, in words.
    rules = [words for name, words in HOUSE_RULE_WORDS.items() if view.get(name) is False]
    if rules:
        lines.append("House rules: " + "; ".join(rules))
    seat = view["turn"]
    who = f"{view['colours'][seat].capitalize()} (seat {seat}, {names[seat]})"
    if view["result"] is not None:
        lines.append(f"Game over: {named(view['result']['reason'], names)}")
    elif view.get("turn_over"):
        # the turn just ended: it is the one counted last, and nobody moves yet
        limit = f" of {view['turn_limit']}" if view["turn_limit"] else ""
        lines.append(f"Turn {view['turns'][seat]}{limit} of {who} has ended; "
                     f"{names[1 - seat]} plays next")
    else:
        limit = f" of {view['turn_limit']}" if view["turn_limit"] else ""
        left = view["moves_left"]
        lines.append(f"Turn {view['turns'][seat] + 1}{limit} of {who}: "
                     f"{left} move{'' if left == 1 else 's'} left")
    pending = view.get("pending")
    if view["result"] is None and pending:
        asker, answerer = pending["by"], 1 - pending["by"]
        what = ("offers a draw" if pending["kind"] == "draw"
                else f"asks to take back its turn {pending['turn']}")
        lines.append(f"{names[asker]} (seat {asker}) {what}: {names[answerer]} "
                     f"(seat {answerer}) to accept or decline")
    lines += ["", head]
    for r in ranks:
        cells = "".join(f"{_cell(view, f'{f}{r}'):<4}" for f in files)
        lines.append(f"{r}   {cells}{r}")
    lines += [head, "", "Supply  " + "   ".join(_supply(view, s) for s in (0, 1))
              + f"   Walls: {view['wall_pile']}", LEGEND]
    return "\n".join(lines) + "\n"


def _moves(n: int) -> str:
    return f"{n} move{'' if n == 1 else 's'}"


def describe(event) -> str:
    p, kind, who = event.payload, event.type, f"seat {event.actor}"
    if kind in ("piece-added", "piece-smuggled"):
        piece = f"a {board.NAMES[p['piece']]}" if "piece" in p else "a hidden piece"
        verb = "adds" if kind == "piece-added" else "smuggles"
        return f"{who} {verb} {piece} on {p['at']} ({_moves(p['cost'])})"
    if kind == "piece-moved":
        return f"{who} moves {p['from']}-{p['to']}"
    if kind == "wall-built":
        return f"{who} builds a wall on {p['at']}"
    if kind == "wall-demolished":
        return f"{who} demolishes the wall on {p['at']}"
    if kind == "cannon-fired":
        hit = p["hit"]
        what = "nothing"
        if hit:
            what = "a wall" if hit["kind"] == "W" else \
                f"seat {hit['owner']}'s {board.NAMES.get(hit['kind'], 'hidden piece')}"
        return f"{who} fires {p['from']} at {p['at']} ({_moves(p['cost'])}), hitting {what}"
    if kind == "piece-revealed":
        return (f"{who} reveals seat {p['owner']}'s {board.NAMES[p['piece']]} on {p['at']} "
                f"({_moves(p['cost'])})")
    if kind == "turn-ended":
        return f"{who} ends turn {p['turn']} ({_moves(p['unused'])} unused)"
    if kind == "turn-begun":
        return f"seat {p['seat']} begins turn {p['turn']} with {_moves(p['moves'])}"
    if kind == "draw-offered":
        return f"{who} offers a draw"
    if kind == "take-back-requested":
        return f"{who} asks to take back its turn {p['turn']}"
    if kind in ("draw-declined", "take-back-declined"):
        what = "draw" if kind == "draw-declined" else "take-back"
        return f"{who} declines seat {p['asked_by']}'s {what}"
    if kind == "draw-accepted":
        return f"{who} accepts seat {p['asked_by']}'s draw"
    if kind == "take-back-accepted":
        return (f"{who} accepts: seat {p['asked_by']}'s turn {p['turn']} is taken back, "
                f"to be played again with {_moves(p['moves'])}")
    if kind in ("game-won", "game-drawn", "resigned"):
        return f"game over: {p['result']['reason']}"
    return f"{event.actor}: {kind}"
