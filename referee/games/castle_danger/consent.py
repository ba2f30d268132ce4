"""Draw offers and take-backs: moves that ask the opponent, and its answer.

Neither rule text has them; the referee adds them as a table would allow them
(rulings R20-R24 of docs/games/castle-danger.md). The seat to move may, during its
own turn, offer a draw or ask to take back its last turn; play then stops until
the opponent accepts or declines. Declined, the asker goes on with its turn as it
was; accepted, a draw ends the game and a take-back puts back the position at the
start of the asker's last turn (remembered as play reached it, so a replay of the
log arrives at it again) for the asker to play that turn anew.
"""

from __future__ import annotations

import copy

from referee.events import Draft
from referee.games.base import IllegalMove, NotYourTurn
from referee.games.castle_danger.state import KEPT_STARTS, CastleState, opponent, snapshot

ASKS = {"offer-draw": "draw", "take-back": "take-back"}
ANSWERS = ("accept", "decline")
WORDS = {"draw": "draw offer", "take-back": "take-back request"}


def hidden_danger(state: CastleState) -> bool:
    return state.options["variant"] == "hidden-danger"


def take_back_target(state: CastleState, seat: int) -> dict | None:
    """The position at the start of ``seat``'s last finished turn, if the referee
    still has it: that turn was played since the game began or the last take-back."""
    if len(state.starts) < KEPT_STARTS:
        return None
    target = state.starts[-KEPT_STARTS]
    return target if target["turn"] == seat else None


def check_pending(state: CastleState, seat: int, move: dict) -> None:
    """While a question awaits its answer, only the answer is a move."""
    pending = state.pending
    kind = move["type"]
    if pending is None:
        if kind in ANSWERS:
            raise IllegalMove("nothing-pending", f"there is no draw offer or take-back request to {kind}")
        return
    asker = pending["by"]
    what = WORDS[pending["kind"]]
    if seat == asker:
        raise IllegalMove("awaiting-answer", f"your {what} awaits seat {opponent(asker)}'s answer: "
                          "nothing else happens until then")
    if kind not in ANSWERS:
        raise IllegalMove("answer-first", f"seat {asker}'s {what} awaits your answer: accept or decline")


def decide_ask(state: CastleState, seat: int, move: dict) -> list[Draft]:
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn: a draw offer or take-back request "
                          "is made in one's own turn")
    kind = ASKS[move["type"]]
    if kind in state.offered:
        raise IllegalMove("already-asked", f"you made a {WORDS[kind]} this turn already; "
                          "one of each per turn")
    if kind == "draw":
        return [Draft("draw-offered", {"seat": seat})]
    if hidden_danger(state):
        raise IllegalMove("no-take-back-in-hidden-danger",
                          "Hidden Danger has no take-backs: putting hidden pieces back would "
                          "undo what the opponent has not seen")
    target = take_back_target(state, seat)
    if target is None:
        raise IllegalMove("no-turn-to-take-back", "you have finished no turn since the game began "
                          "or the last take-back, so there is no turn of yours to take back")
    return [Draft("take-back-requested", {"seat": seat, "turn": target["turns"][seat] + 1})]


def decide_answer(state: CastleState, seat: int, move: dict, scores) -> list[Draft]:
    pending = state.pending
    asker, kind = pending["by"], pending["kind"]
    if move["type"] == "decline":
        event = "draw-declined" if kind == "draw" else "take-back-declined"
        return [Draft(event, {"seat": seat, "asked_by": asker})]
    if kind == "draw":
        result = {"winners": [0, 1],
                  "reason": f"draw agreed: seat {asker} offered a draw and seat {seat} accepted",
                  "scores": scores(state)}
        return [Draft("draw-accepted", {"seat": seat, "asked_by": asker}),
                Draft("game-drawn", {"result": result})]
    target = take_back_target(state, asker)
    return [Draft("take-back-accepted", {"seat": seat, "asked_by": asker, "turn": pending["turn"],
                                         "moves": target["moves_left"]})]


def legal(state: CastleState, seat: int) -> list[dict] | None:
    """The moves while a question is pending (None: nothing is pending)."""
    if state.pending is None:
        return None
    return [] if seat == state.pending["by"] else [{"type": "accept"}, {"type": "decline"}]


def asks(state: CastleState, seat: int) -> list[dict]:
    """The questions the seat to move may still ask now."""
    out = []
    if "draw" not in state.offered:
        out.append({"type": "offer-draw"})
    if ("take-back" not in state.offered and not hidden_danger(state)
            and take_back_target(state, seat) is not None):
        out.append({"type": "take-back"})
    return out


def evolve(state: CastleState, kind: str, p: dict) -> bool:
    """Apply a consent event; False if ``kind`` is none."""
    if kind == "draw-offered":
        state.pending = {"kind": "draw", "by": p["seat"]}
        state.offered = [*state.offered, "draw"]
    elif kind == "take-back-requested":
        state.pending = {"kind": "take-back", "by": p["seat"], "turn": p["turn"]}
        state.offered = [*state.offered, "take-back"]
    elif kind in ("draw-declined", "take-back-declined", "draw-accepted"):
        state.pending = None
    elif kind == "take-back-accepted":
        target = copy.deepcopy(take_back_target(state, p["asked_by"]))
        for name, value in target.items():
            setattr(state, name, value)
        state.pending, state.offered = None, []
        # the restored turn is the newest start kept: an earlier one is out of reach
        state.starts = [snapshot(state)]
    else:
        return False
    return True


def remember_start(state: CastleState) -> None:
    """Keep the position of the turn just begun (called after ``turn-begun``)."""
    state.pending, state.offered = None, []
    if not hidden_danger(state):
        state.starts = [*state.starts[-(KEPT_STARTS - 1):], snapshot(state)]
