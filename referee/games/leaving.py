"""A seat leaving a game: the result its resignation (or a forfeit on time) writes.

At a table of two, or under the house rule ``on_resign: "end"``, the seat that
leaves loses and the game ends (``resign_result``). In a game that plays on
(``Engine.plays_on``) the seat leaves while the others play on: the referee plays
its turns, it cannot win (``without_leavers``, at the game's end by play), and
when one seat alone is still in, that one wins (``last_one_in``). Pure functions of
the state (``referee.games.base.GameState``: its ``players`` and ``left``).
"""

from __future__ import annotations


def resign_result(state, seat: int, scores: list) -> dict:
    """The result of a resignation that ends the game for everyone (a game of two,
    or one under ``on_resign: "end"``). The resigning seat loses; among the others
    the highest score wins, a tie sharing the win. With two players that is simply
    the opponent."""
    others = [s for s in range(state.players) if s != seat]
    best = max(scores[s] for s in others)
    winners = [s for s in others if scores[s] == best]
    return {"winners": winners, "reason": f"seat {seat} resigned", "scores": list(scores)}


def last_one_in(state, seat: int, scores: list) -> dict | None:
    """The result once ``seat`` leaves a game that plays on: None while two or more
    seats are still in; else the one seat still in wins. ``left`` lists the seats
    that left, in the order they left (the placings' order: referee/players/ratings.py)."""
    left = [*state.left, seat]
    still = [s for s in range(state.players) if s not in left]
    if len(still) > 1:
        return None
    return {"winners": still, "reason": f"seat {still[0]} is the last seat still in",
            "scores": list(scores), "left": left}


def without_leavers(state, result: dict) -> dict:
    """A game's result at its end by play, once seats have left it: a seat that left
    cannot win, so the winners are the engine's among the seats still in, or, when
    every one of those has left, the seats still in with the highest score. The
    result then lists the leavers (``left``, in the order they left). Unchanged
    when nobody left."""
    if not state.left:
        return result
    left = list(state.left)
    still = [s for s in range(state.players) if s not in left]
    winners = [w for w in result["winners"] if w not in left]
    reason = result["reason"]
    if winners != result["winners"]:  # a seat that left had (a share of) the win: said anew
        scores = result["scores"]
        if not winners:
            best = max(scores[s] for s in still)
            winners = [s for s in still if scores[s] == best]
        who = f"seat {winners[0]} has" if len(winners) == 1 else \
            "seats " + _and(winners) + " share"
        reason = f"{who} the highest score of the seats still in, {scores[winners[0]]}"
    gone = f"seat {left[0]}" if len(left) == 1 else "seats " + _and(left)
    return {**result, "winners": winners, "reason": f"{reason} ({gone} left the game)", "left": left}


def _and(seats: list[int]) -> str:
    """"0 and 2", "0, 1 and 3": how ``referee.narration.named`` finds a list of seats."""
    words = [str(s) for s in seats]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
