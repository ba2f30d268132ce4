"""Castle Danger's engine: turns, events, what each viewer sees."""

from __future__ import annotations

import copy

from referee.events import Draft, Event
from referee.games.base import (
    ADMIN,
    BadOptions,
    Engine,
    NotYourTurn,
    check_option_names,
    house_rule,
    open_to_all,
    with_move,
)
from referee.games.castle_danger import actions, board, consent, diagram, notation
from referee.games.castle_danger.state import (
    CastleState,
    initial,
    moves_for,
    on_board,
    opponent,
    with_own_position,
)

EDITIONS = ("10th", "3rd")
VARIANTS = ("standard", "hidden-danger")
# The first player's colour (the second has the other one).
FIRST_COLOUR = {"10th": "blue", "3rd": "red"}
ACTION_EVENTS = frozenset(["piece-added", "piece-smuggled", "piece-moved", "wall-built",
                           "wall-demolished", "cannon-fired", "piece-revealed"])


def colours(options: dict) -> list[str]:
    first = FIRST_COLOUR[options["edition"]]
    return [first, "red" if first == "blue" else "blue"]


def sees_hidden(viewer, owner: int) -> bool:
    return viewer == ADMIN or viewer == owner


# House rules (docs/games/castle-danger.md, R5 and R2): the readings, default first.
HOUSE_RULES = {"fire_blocks_building": (True, False), "own_side_shots": (True, False)}

# Far beyond any real game (the editions suggest 25 or 30); a bound keeps every
# number a client sends within what a store and a JSON reader handle.
MAX_TURN_LIMIT = 10_000


class CastleDanger(Engine):
    name = "castle-danger"
    title = "Castle Danger"
    min_players = max_players = 2
    # 2: turn_over; 3: draw offers and take-backs (pending, offered, starts); 4: the
    # house rules below, and a shot at one's own King allowed (it loses the game);
    # 5: games of players (referee/seeing.py)
    version = 5
    players_since = 5
    # Games created before version 4 were played under what is now the default.
    later_options = {"fire_blocks_building": (4, True), "own_side_shots": (4, True)}

    # ---- options and start -------------------------------------------------------

    def setup(self, options: dict, players: int) -> dict:
        check_option_names(options, ("edition", "variant", "turn_limit", *HOUSE_RULES), self.title)
        edition = options.get("edition", "10th")
        if edition not in EDITIONS:
            raise BadOptions("edition is '10th' (blue first) or '3rd' (red first)", field="edition")
        variant = options.get("variant", "standard")
        if variant not in VARIANTS:
            raise BadOptions("variant is 'standard' or 'hidden-danger'", field="variant")
        limit = options.get("turn_limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or not 1 <= limit <= MAX_TURN_LIMIT):
            raise BadOptions(f"turn_limit is null or a number of turns per player from 1 to {MAX_TURN_LIMIT}",
                             field="turn_limit")
        rules = {name: house_rule(options, name, readings) for name, readings in HOUSE_RULES.items()}
        return {"edition": edition, "variant": variant, "turn_limit": limit, **rules}

    def start(self, created: dict) -> CastleState:
        seats = created["seats"]
        return initial(len(seats), self.created_options(created), [s["name"] for s in seats])

    # ---- moves -------------------------------------------------------------------

    # the notation's own function, not a method calling it: asked at every move
    normalize = staticmethod(notation.normalize)

    def parse_one(self, text: str) -> dict:
        return notation.parse_one(text)

    def format_move(self, move: dict) -> str:
        return notation.format_move(move)

    def decide_move(self, state: CastleState, seat: int, move: dict) -> list[Draft]:
        consent.check_pending(state, seat, move)
        if state.pending is not None:
            return consent.decide_answer(state, seat, move, self.scores)
        if move["type"] in consent.ASKS:
            return consent.decide_ask(state, seat, move)
        return self._act(state, seat, move, in_place=False)

    def play(self, state: CastleState, seat: int, move: dict) -> tuple[CastleState, list[Draft]]:
        """An action or a turn's end decided and applied in one pass (``Engine.play``):
        the position after the action, which the decision needs anyway (the next
        turn's moves, the scores), is the state itself, not a copy. Anything else
        (a question, its answer, a resignation, a refusal of those) as ``decide``
        then ``evolve``."""
        normal = self.admitted(state, seat, move)
        if normal is None or state.pending is not None or normal["type"] not in actions.TURN_MOVES:
            return super().play(state, seat, move)
        return state, with_move(self._act(state, seat, normal, in_place=True), normal)

    def _act(self, state: CastleState, seat: int, move: dict, in_place: bool) -> list[Draft]:
        """The events of an action or of ending the turn, by the seat whose turn it
        is; ``in_place``: each applied to ``state`` as it is decided."""
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn}'s turn")
        if move["type"] == "end":
            drafts, applied = self._pass_turn(state, seat), 0
        else:
            kind, payload = actions.CHECKS[move["type"]](state, seat, move)
            drafts, applied = [Draft(kind, payload)], 0
            left = state.moves_left
            if in_place:
                self.evolve_event(state, drafts[0])
                applied = 1
            hit = payload.get("hit")
            if hit and hit["kind"] == "K":
                # Both texts: a player whose King is hit loses (ruling R2), whoever shot.
                loser = hit["owner"]
                whose = "its own" if loser == seat else f"seat {loser}'s"
                reason = f"seat {seat}'s Cannon on {payload['from']} hit {whose} King on {payload['at']}"
                if loser == seat:
                    reason += f": seat {seat} loses"
                after = state if in_place else self._after(state, drafts)
                result = {"winners": [opponent(loser)], "reason": reason, "scores": self.scores(after)}
                drafts.append(Draft("game-won", {"result": result}))
            elif payload["cost"] == left:
                drafts += self._pass_turn(state if in_place else self._after(state, drafts), seat)
        if in_place:
            for draft in drafts[applied:]:
                self.evolve_event(state, draft)
        return drafts

    def _after(self, state: CastleState, drafts: list[Draft]) -> CastleState:
        """The state after a turn's action ``drafts``: asked only about the position
        (its scores, the next turn's moves), which is all an action changes."""
        after = with_own_position(state)
        for d in drafts:
            after = self.evolve_event(after, d)
        return after

    def _pass_turn(self, state: CastleState, seat: int) -> list[Draft]:
        """The turn of ``seat`` ends (its unused moves are lost); the next begins, or
        the turn limit makes the game a draw."""
        finished = list(state.turns)
        finished[seat] += 1
        drafts = [Draft("turn-ended", {"seat": seat, "turn": finished[seat],
                                       "unused": state.moves_left})]
        limit = state.options["turn_limit"]
        if limit is not None and min(finished) >= limit:
            result = {"winners": [0, 1],
                      "reason": f"draw: both players have played the turn limit of {limit} turns",
                      "scores": self.scores(state)}
            drafts.append(Draft("game-drawn", {"result": result}))
            return drafts
        nxt = opponent(seat)
        drafts.append(Draft("turn-begun", {
            "seat": nxt, "turn": finished[nxt] + 1, "moves": moves_for(state, nxt),
            "fire_out": sorted(sq for sq, owner in state.fire.items() if owner == nxt)}))
        return drafts

    # ---- events ------------------------------------------------------------------

    def evolve_event(self, state: CastleState, event: Event) -> CastleState:
        p, kind = event.payload, event.type
        if kind in ACTION_EVENTS:
            state.moves_left -= p["cost"]
            state.actions += 1
        if kind in ("piece-added", "piece-smuggled"):
            state.pieces[p["at"]] = {"owner": p["seat"], "kind": p["piece"],
                                     "hidden": kind == "piece-smuggled", "fired": False}
            state.supply[p["seat"]][p["piece"]] -= 1
        elif kind == "piece-moved":
            state.pieces[p["to"]] = state.pieces.pop(p["from"])
        elif kind == "wall-built":
            state.walls = sorted([*state.walls, p["at"]])
            state.wall_pile -= 1
        elif kind == "wall-demolished":
            state.walls = [w for w in state.walls if w != p["at"]]
            state.wall_pile += 1
        elif kind == "cannon-fired":
            self._land(state, p)
        elif kind == "piece-revealed":
            state.pieces[p["at"]]["hidden"] = False
            if p["owner"] != p["seat"]:
                state.reveals += 1
        elif kind == "turn-ended":
            state.turns[p["seat"]] = p["turn"]
            state.turn_over = True
        elif kind == "turn-begun":
            seat = p["seat"]
            state.turn, state.moves_left, state.turn_over = seat, p["moves"], False
            state.actions = state.reveals = 0
            if p["fire_out"]:  # (most turns put out no fire)
                state.fire = {sq: s for sq, s in state.fire.items() if sq not in p["fire_out"]}
            for piece in state.pieces.values():
                if piece["fired"] and piece["owner"] == seat:  # (only a Cannon that fired is changed)
                    piece["fired"] = False
            consent.remember_start(state)
        elif kind in ("game-won", "game-drawn"):
            state.result = p["result"]
        elif not consent.evolve(state, kind, p):
            raise ValueError(f"castle-danger: unknown event {kind!r}")
        return state

    @staticmethod
    def _land(state: CastleState, p: dict) -> None:
        state.pieces[p["from"]]["fired"] = True
        at = p["at"]
        if at in state.walls:
            state.walls = [w for w in state.walls if w != at]
            state.wall_pile += 1
        elif at in state.pieces:
            piece = state.pieces.pop(at)
            if piece["kind"] in board.SUPPLY:
                state.supply[piece["owner"]][piece["kind"]] += 1
        if p["fire"]:
            state.fire[at] = p["seat"]

    def due(self, state: CastleState) -> None:
        return None

    def settle(self, state, rng):
        raise RuntimeError("Castle Danger has no referee steps")

    # ---- questions ---------------------------------------------------------------

    def to_act(self, state: CastleState) -> list[int]:
        if state.pending is not None:
            return [opponent(state.pending["by"])]
        return [state.turn]

    def legal_moves(self, state: CastleState, seat: int) -> list[dict]:
        answers = consent.legal(state, seat)
        if answers is not None:
            return answers
        if seat != state.turn:
            return []
        return actions.available(state, seat) + consent.asks(state, seat)

    def self_defeating(self, state: CastleState, seat: int, move: dict) -> bool:
        """A shot at one's own King (R2): it loses the game."""
        if move["type"] != "fire":
            return False
        target = state.pieces.get(move["at"])
        return bool(target and target["owner"] == seat and target["kind"] == "K")

    def scores(self, state: CastleState) -> list[int]:
        """Pieces (King, Wizards, Builders, Cannons) each player has on the board."""
        return [on_board(state, s) for s in range(state.players)]

    def view(self, state: CastleState, viewer) -> dict:
        # Once the game is over and its seed revealed nothing is secret any more
        # (the log's events are opened at the same moment).
        over = open_to_all(state)
        pieces = {}
        for sq, p in sorted(state.pieces.items()):
            shown = dict(p)
            if p["hidden"] and not (over or sees_hidden(viewer, p["owner"])):
                shown["kind"] = "?"
            pieces[sq] = shown
        supply = []
        for seat in range(state.players):
            counts = dict(state.supply[seat])
            hidden = [p for p in state.pieces.values() if p["owner"] == seat and p["hidden"]]
            exact = over or sees_hidden(viewer, seat)
            if not exact:
                # Counting the hidden pieces back in: what the opponent can know.
                for p in hidden:
                    counts[p["kind"]] += 1
            supply.append({**counts, "hidden_on_board": len(hidden), "exact": exact})
        opts = state.options
        return {
            "edition": opts["edition"], "variant": opts["variant"],
            "turn_limit": opts["turn_limit"], "colours": colours(opts),
            **{name: opts[name] for name in HOUSE_RULES},
            "turn": state.turn, "moves_left": state.moves_left, "turns": list(state.turns),
            "turn_over": state.turn_over,
            "pending": copy.deepcopy(state.pending), "asked_this_turn": list(state.offered),
            "actions_this_turn": state.actions, "reveals_this_turn": state.reveals,
            "portals": list(board.PORTALS), "pieces": pieces, "walls": list(state.walls),
            "fire": dict(sorted(state.fire.items())), "supply": supply,
            "wall_pile": state.wall_pile, "scores": self.scores(state),
            "result": copy.deepcopy(state.result),
        }

    def redact(self, event: Event, viewer) -> dict:
        p = event.payload
        if event.type == "piece-smuggled" and not sees_hidden(viewer, p["seat"]):
            out = {k: v for k, v in p.items() if k != "piece"}
            if "move" in out:
                out["move"] = {"type": "smuggle"}
            return out
        if event.type == "cannon-fired" and p["hit"] and p["hit"]["hidden"] \
                and not sees_hidden(viewer, p["hit"]["owner"]):
            return {**p, "hit": {**p["hit"], "kind": "?"}}
        return p

    def render(self, state: CastleState, viewer) -> str:
        return diagram.render(self.view(state, viewer), state.names, viewer)

    def describe(self, event: Event) -> str:
        return diagram.describe(event)
