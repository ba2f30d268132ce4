"""A tiny game for testing the kernel on its own: Nim with a dealt pile.

Not one of the referee's games; it exists so that the table, the log and the
audit can be tested apart from any real game's rules (the real games are tested
through the same paths in their own files).
"""

from dataclasses import dataclass

from referee import games
from referee.events import Draft
from referee.games.base import Engine, GameState, IllegalMove, MalformedMove, NotYourTurn


@dataclass(kw_only=True)
class NimState(GameState):
    pile: int | None = None
    turn: int = 0
    secret: dict | None = None  # a hidden card per seat, to test redaction


class Nim(Engine):
    name, title, min_players, max_players = "toy-nim", "Nim", 2, 3

    def setup(self, options, players):
        return {"first_dealer": options.get("first_dealer", 0)}

    def start(self, created):
        return NimState(players=len(created["seats"]), options=created["options"], names=[s["name"] for s in created["seats"]])

    def normalize(self, move):
        if move.get("type") != "take" or move.get("n") not in (1, 2, 3):
            raise MalformedMove("take 1, 2 or 3")
        return {"type": "take", "n": move["n"]}

    def decide_move(self, state, seat, move):
        if seat != state.turn:
            raise NotYourTurn("not your turn")
        if move["n"] > state.pile:
            raise IllegalMove("pile-too-small", "not that many left")
        drafts = [Draft("taken", {"seat": seat, "n": move["n"]})]
        if state.pile == move["n"]:
            drafts.append(Draft("game-won", {"result": {"winners": [seat], "reason": "took the last", "scores": [0] * state.players}}))
        return drafts

    def evolve_event(self, state, event):
        if event.type == "dealt":
            state.pile = event.payload["pile"]
            state.secret = event.payload["secret"]
        elif event.type == "taken":
            state.pile -= event.payload["n"]
            state.turn = (state.turn + 1) % state.players
        elif event.type == "game-won":
            state.result = event.payload["result"]
        return state

    def due(self, state):
        return "deal" if state.pile is None else None

    def settle(self, state, rng):
        return [Draft("dealt", {"pile": 5 + rng.randbelow(10),
                                "secret": {str(s): rng.randbelow(100) for s in range(state.players)}})]

    def to_act(self, state):
        return [state.turn]

    def legal_moves(self, state, seat):
        if seat != state.turn:
            return []
        return [{"type": "take", "n": n} for n in (1, 2, 3) if n <= state.pile]

    def view(self, state, viewer):
        mine = state.secret.get(str(viewer)) if state.secret and isinstance(viewer, int) else None
        return {"pile": state.pile, "turn": state.turn, "my_secret": mine,
                "secrets": state.secret if viewer == "admin" else None}

    def redact(self, event, viewer):
        if event.type == "dealt" and viewer != "admin":
            return {"pile": event.payload["pile"], "secret": {k: v for k, v in event.payload["secret"].items() if k == str(viewer)}}
        return event.payload

    def scores(self, state):
        return [0] * state.players

    def parse_one(self, text):
        parts = text.split()
        if len(parts) == 2 and parts[0] == "take" and parts[1].isdigit():
            return self.normalize({"type": "take", "n": int(parts[1])})
        raise MalformedMove(f"cannot read {text!r}", field="text")

    def format_move(self, move):
        return f"take {move['n']}"


def install():
    games.ENGINES["toy-nim"] = "tests.toy_engine:Nim"
    games._loaded["toy-nim"] = Nim()
