"""The actions of a turn: what each costs, when the rules refuse it, and every one
available now. Each check returns the event the action writes, as (type, payload);
every payload carries ``cost``, the moves it spends."""

from __future__ import annotations

from referee.games.base import IllegalMove
from referee.games.castle_danger import board
from referee.games.castle_danger.state import (
    CastleState,
    add_cost,
    is_empty,
    wizards,
)

REVEAL_OWN, REVEAL_OPPOSING = 1, 3


def hidden_danger(state: CastleState) -> bool:
    return state.options["variant"] == "hidden-danger"


def _afford(state: CastleState, cost: int, what: str) -> None:
    if cost > state.moves_left:
        raise IllegalMove("too-few-moves", f"{what} costs {cost} moves; {state.moves_left} left")


def _own(state: CastleState, seat: int, sq: str) -> dict:
    piece = state.pieces.get(sq)
    if piece is None or piece["owner"] != seat:
        raise IllegalMove("not-your-piece", f"no piece of yours on {sq}")
    return piece


def _builder_next_to(state: CastleState, seat: int, sq: str) -> bool:
    for n in board.neighbours(sq):
        p = state.pieces.get(n)
        if p and p["owner"] == seat and p["kind"] == "B" and not p["hidden"]:
            return True
    return False


def check_add(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    hidden = move["type"] == "smuggle"
    if hidden and not hidden_danger(state):
        raise IllegalMove("hidden-danger-only", "smuggle is part of the Hidden Danger variant")
    if move["piece"] not in board.ADDABLE:
        raise IllegalMove("not-addable", "only a Wizard, Builder or Cannon may be added")
    if state.actions:
        raise IllegalMove("add-first", "a piece may only be added as the first action of a turn")
    portal = board.PORTALS[seat]
    if portal in state.pieces or portal in state.walls:
        raise IllegalMove("portal-occupied", f"your portal {portal} is not empty")
    if state.supply[seat][move["piece"]] == 0:
        raise IllegalMove("supply-exhausted", f"no {board.NAMES[move['piece']]} left in your supply")
    cost = add_cost(state, seat)
    _afford(state, cost, "adding a piece")
    kind = "piece-smuggled" if hidden else "piece-added"
    return kind, {"seat": seat, "at": portal, "piece": move["piece"], "cost": cost}


def check_move(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    src, dst = move["from"], move["to"]
    _own(state, seat, src)
    if not board.adjacent(src, dst):
        raise IllegalMove("not-adjacent", "a piece moves one square, straight, not diagonally")
    if board.terrain(dst) == "river":
        raise IllegalMove("river", "no piece may enter the river")
    if dst in state.pieces or dst in state.walls:
        raise IllegalMove("occupied", f"{dst} is not empty")
    if dst in state.fire:
        raise IllegalMove("fire", f"{dst} is on fire")
    _afford(state, 1, "moving")
    return "piece-moved", {"seat": seat, "from": src, "to": dst, "cost": 1}


def check_build(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    at = move["at"]
    if not _builder_next_to(state, seat, at):
        raise IllegalMove("no-builder", f"no revealed Builder of yours next to {at}")
    if board.terrain(at) != "grass":
        raise IllegalMove(board.terrain(at), f"walls go on grass only; {at} is {board.terrain(at)}")
    if at in state.pieces or at in state.walls:
        raise IllegalMove("occupied", f"{at} is not empty")
    if at in state.fire and state.options["fire_blocks_building"]:
        raise IllegalMove("fire", f"{at} is on fire (house rule fire_blocks_building)")
    if state.wall_pile == 0:
        raise IllegalMove("supply-exhausted", "all 20 walls are on the board")
    _afford(state, 1, "building")
    return "wall-built", {"seat": seat, "at": at, "cost": 1}


def check_demolish(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    at = move["at"]
    if at not in state.walls:
        raise IllegalMove("no-wall", f"no wall on {at}")
    if not _builder_next_to(state, seat, at):
        raise IllegalMove("no-builder", f"no revealed Builder of yours next to {at}")
    _afford(state, 1, "demolishing")
    return "wall-demolished", {"seat": seat, "at": at, "cost": 1}


def check_fire(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    src, at = move["from"], move["at"]
    cannon = _own(state, seat, src)
    if cannon["kind"] != "C" and not cannon["hidden"]:
        raise IllegalMove("not-a-cannon", f"the piece on {src} is not a Cannon")
    if cannon["hidden"]:
        raise IllegalMove("hidden-piece", f"the piece on {src} is hidden: reveal it first")
    if cannon["fired"]:
        raise IllegalMove("already-fired", f"the Cannon on {src} has fired this turn")
    line = board.line_of_fire(src, seat)
    if at not in line:
        raise IllegalMove("not-in-line", f"{at} is not in front of the Cannon on {src}, "
                          "in its column toward the opponent's edge")
    distance = line.index(at) + 1
    wall = next((i + 1 for i, sq in enumerate(line) if sq in state.walls), None)
    if wall is not None and distance > wall:
        raise IllegalMove("wall-in-the-way", f"the wall on {line[wall - 1]} stops the cannonball")
    if not state.options["own_side_shots"] and board.side(at) == seat:
        raise IllegalMove("own-side", f"{at} is on your own side of the river "
                          "(house rule own_side_shots: false)")
    target = state.pieces.get(at)
    _afford(state, distance, f"firing {distance} squares")
    hit = None
    if at in state.walls:
        hit = {"kind": "W", "owner": None, "hidden": False}
    elif target:
        hit = {"kind": target["kind"], "owner": target["owner"], "hidden": target["hidden"]}
    # Portals never hold fire; the 3rd edition says the river does not either, while
    # the 10th names only the portals (fire on the river changes nothing in play).
    fire = at not in board.PORTALS and not (
        board.terrain(at) == "river" and state.options["edition"] == "3rd")
    return "cannon-fired", {"seat": seat, "from": src, "at": at, "cost": distance,
                            "hit": hit, "fire": fire}


def check_reveal(state: CastleState, seat: int, move: dict) -> tuple[str, dict]:
    if not hidden_danger(state):
        raise IllegalMove("hidden-danger-only", "reveal is part of the Hidden Danger variant")
    at = move["at"]
    piece = state.pieces.get(at)
    if piece is None or not piece["hidden"]:
        raise IllegalMove("not-hidden", f"no hidden piece on {at}")
    if piece["owner"] == seat:
        cost = REVEAL_OWN
    else:
        cost = REVEAL_OPPOSING
        if wizards(state, seat) == 0:
            raise IllegalMove("no-wizard", "revealing an opposing piece needs a Wizard of yours on the board")
        if state.reveals >= wizards(state, seat):
            raise IllegalMove("reveal-limit", "one opposing reveal per turn for each of your Wizards")
    _afford(state, cost, "revealing")
    return "piece-revealed", {"seat": seat, "at": at, "owner": piece["owner"],
                              "piece": piece["kind"], "cost": cost}


def buildable(state: CastleState, sq: str) -> bool:
    """A grass square with no piece and no wall, and no fire unless the house rule
    ``fire_blocks_building`` is off."""
    return (board.terrain(sq) == "grass" and sq not in state.pieces and sq not in state.walls
            and (sq not in state.fire or not state.options["fire_blocks_building"]))


CHECKS = {"add": check_add, "smuggle": check_add, "move": check_move, "build": check_build,
          "demolish": check_demolish, "fire": check_fire, "reveal": check_reveal}
# Every move of a turn's own play: its actions and ending it (not a question to the
# opponent or its answer, referee/games/castle_danger/consent.py).
TURN_MOVES = frozenset([*CHECKS, "end"])


def available(state: CastleState, seat: int) -> list[dict]:
    """Every single action ``seat`` may take now (``end`` last)."""
    out: list[dict] = []
    portal = board.PORTALS[seat]
    if state.actions == 0 and portal not in state.pieces and portal not in state.walls:
        for verb in ("add", "smuggle") if hidden_danger(state) else ("add",):
            out += [{"type": verb, "piece": k} for k in board.ADDABLE if state.supply[seat][k]]
    mine = sorted(sq for sq, p in state.pieces.items() if p["owner"] == seat)
    own_side = state.options["own_side_shots"]
    for sq in mine:
        for n in board.neighbours(sq):
            if board.terrain(n) != "river" and is_empty(state, n):
                out.append({"type": "move", "from": sq, "to": n})
    builders = [sq for sq in mine if state.pieces[sq]["kind"] == "B" and not state.pieces[sq]["hidden"]]
    around = sorted({n for sq in builders for n in board.neighbours(sq)})
    if state.wall_pile:
        out += [{"type": "build", "at": sq} for sq in around if buildable(state, sq)]
    out += [{"type": "demolish", "at": sq} for sq in around if sq in state.walls]
    for sq in mine:
        p = state.pieces[sq]
        if p["kind"] != "C" or p["hidden"] or p["fired"]:
            continue
        for distance, at in enumerate(board.line_of_fire(sq, seat), start=1):
            if distance > state.moves_left:
                break
            if own_side or board.side(at) != seat:
                out.append({"type": "fire", "from": sq, "at": at})
            if at in state.walls:
                break
    if hidden_danger(state):
        reveal_opposing = (state.moves_left >= REVEAL_OPPOSING
                           and state.reveals < wizards(state, seat))
        for sq in sorted(state.pieces):
            p = state.pieces[sq]
            if p["hidden"] and (p["owner"] == seat or reveal_opposing):
                out.append({"type": "reveal", "at": sq})
    out.append({"type": "end"})
    return out

