"""Draw offers and take-backs in Castle Danger (rulings R20-R24), on scripted games
worked out by hand: who may ask, the one answer allowed, what accepting does, and
that the log of such a game re-derives in the audit."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from referee import bots
from referee.audit import audit
from referee.autoplay import new_table, play
from referee.events import Event
from referee.games.base import IllegalMove, NotYourTurn
from referee.games.castle_danger.state import POSITION, snapshot
from referee.rng import Rng
from referee.table import Table
from tests.games.castle_danger_helpers import SEED, act, board_of, refused, table, types

VIEWERS = (0, 1, None, "admin")
ANSWERS = [{"type": "accept"}, {"type": "decline"}, {"type": "resign"}]


def views(t) -> dict:
    return {v: t.engine.view(t.state, v) for v in VIEWERS}


def logged(options: dict | None = None):
    """A table and its whole log, for moves played with ``step``."""
    return new_table("castle-danger", ["ann", "bob"], options or {}, SEED)


def step(t, log, seat: int, text: str) -> list:
    return play(t, seat, t.engine.parse(text), SEED, log)


def export(log) -> str:
    return "".join(ev.to_json() + "\n" for ev in log)


def reseal(lines: list[dict]) -> str:
    """What a forger does: recompute every hash so the chain looks whole."""
    prev, out = "0" * 64, []
    for d in lines:
        ev = Event.from_dict({**d, "prev": prev, "hash": ""}).sealed()
        prev = ev.hash
        out.append(ev.to_json())
    return "\n".join(out) + "\n"


# ---- draws ------------------------------------------------------------------------------

@pytest.mark.parametrize("edition", ["10th", "3rd"])
def test_a_draw_offered_and_accepted_ends_the_game_as_a_draw(edition):
    t = table({"edition": edition})
    act(t, 0, "add C; d1-d2")  # 2 + 1 moves of 6: 3 left
    ev = act(t, 0, "offer draw")
    assert types(ev) == ["draw-offered"]
    assert ev[0].payload == {"move": {"type": "offer-draw"}, "seat": 0}
    # Play stops: only seat 1 acts, and only to answer (or resign).
    assert t.to_act() == [1]
    assert t.engine.legal(t.state, 1) == ANSWERS
    assert t.engine.legal(t.state, 0) == [{"type": "resign"}]
    view = t.engine.view(t.state, None)
    assert view["pending"] == {"kind": "draw", "by": 0} and view["turn"] == 0
    assert view["moves_left"] == 3

    ev = act(t, 1, "accept")
    assert types(ev) == ["draw-accepted", "game-drawn", "seed-revealed"]
    assert ev[0].payload == {"move": {"type": "accept"}, "seat": 1, "asked_by": 0}
    # Like the turn limit's draw: both seats win, the reason says draw, scores are
    # the pieces on the board (King, Wizard, Cannon against King, Wizard).
    assert t.state.result == {"winners": [0, 1],
                              "reason": "draw agreed: seat 0 offered a draw and seat 1 accepted",
                              "scores": [3, 2]}
    assert t.status == "finished" and t.to_act() == []


def test_a_declined_draw_leaves_the_same_player_to_move_as_before():
    t = table()
    act(t, 0, "add B; d1-d2")  # 3 moves left
    before = views(t)
    act(t, 0, "offer draw")
    ev = act(t, 1, "decline")
    assert types(ev) == ["draw-declined"]
    assert ev[0].payload == {"move": {"type": "decline"}, "seat": 1, "asked_by": 0}
    assert t.to_act() == [0] and t.state.moves_left == 3 and t.state.result is None
    after = views(t)
    for v in VIEWERS:  # all as before, but that the offer was made this turn
        assert after[v]["asked_this_turn"] == ["draw"]
        assert {**after[v], "asked_this_turn": []} == before[v]
    # One offer a turn; the turn goes on with the 3 moves it had.
    assert refused(t, 0, "offer draw", IllegalMove).rule == "already-asked"
    assert {"type": "offer-draw"} not in t.engine.legal(t.state, 0)
    ev = act(t, 0, "build d3; end")  # d3: grass next to the Builder on d2
    assert types(ev) == ["wall-built", "turn-ended", "turn-begun"]
    assert ev[1].payload == {"move": {"type": "end"}, "seat": 0, "turn": 1, "unused": 2}
    assert "d3" in t.state.walls and t.to_act() == [1]


def test_each_turn_may_offer_again():
    t = table()
    act(t, 0, "offer draw")
    act(t, 1, "decline")
    act(t, 0, "end")
    assert {"type": "offer-draw"} in t.engine.legal(t.state, 1)
    act(t, 1, "offer draw")
    act(t, 0, "decline")
    act(t, 1, "end")
    act(t, 0, "offer draw")  # seat 0's next turn: a new offer
    assert t.state.pending == {"kind": "draw", "by": 0}


# ---- take-backs -------------------------------------------------------------------------

def three_turns(t, log):
    """Seat 0's turn 1 and seat 1's turn 1, then seat 0 starts turn 2; returns the
    views at the start of each of seat 0's turns 1 and 2."""
    start1 = views(t)
    step(t, log, 0, "add B; d1-d2; d2-d3")  # 2 + 2 moves: 2 left
    step(t, log, 0, "build c3; end")  # c3 is grass next to the Builder on d3
    step(t, log, 1, "add C; d9-d8; d8-d7; d7-d6; fire d6 d3")  # free add, 3 steps, 3 squares
    assert t.state.fire == {"d3": 1} and t.state.supply[0]["B"] == 3
    start2 = views(t)
    return start1, start2


def test_a_take_back_accepted_restores_the_position_exactly():
    t, log = logged()
    _, start2 = three_turns(t, log)
    # Seat 0's turn 2: it moves, then thinks better of its turn 1 and asks.
    assert t.to_act() == [0] and t.state.moves_left == 6 and t.state.turns == [1, 1]
    step(t, log, 0, "c1-b1")
    # Its turn 2 started at start2; what it asks back is its turn 1, so the game
    # goes back to before seat 0's turn 1, seat 1's reply and this turn's step.
    ev = step(t, log, 0, "take back")
    assert types(ev) == ["take-back-requested"]
    assert ev[0].payload == {"move": {"type": "take-back"}, "seat": 0, "turn": 1}
    assert t.to_act() == [1] and t.engine.legal(t.state, 1) == ANSWERS
    assert t.engine.legal(t.state, 0) == [{"type": "resign"}]
    assert t.engine.view(t.state, 1)["pending"] == {"kind": "take-back", "by": 0, "turn": 1}

    ev = step(t, log, 1, "accept")
    assert types(ev) == ["take-back-accepted"]
    assert ev[0].payload == {"move": {"type": "accept"}, "seat": 1, "asked_by": 0, "turn": 1,
                             "moves": 6}
    # The start of the game again, exactly, for every viewer: no Builder, no wall
    # on c3, no Cannon of seat 1, no fire, full supplies, turns [0, 0].
    fresh = logged()[0]
    assert views(t) == views(fresh)
    assert board_of(t) == {"c1": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z"}
    assert t.state.fire == {} and t.state.walls == ["c2", "c8", "e2", "e8"]
    assert t.engine.render(t.state, 0) == fresh.engine.render(fresh.state, 0)
    # The requester moves again, its turn 1 anew, and may play it differently.
    assert t.to_act() == [0] and t.state.moves_left == 6
    ev = step(t, log, 0, "add C")
    assert ev[0].payload["cost"] == 2
    # The log kept everything: nothing was deleted, and a replay arrives here too.
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert sum(1 for e in log if e.type == "piece-added") == 3
    assert Table.replay(log).state == t.state


def test_a_turn_start_kept_for_a_take_back_shares_nothing_with_the_position():
    # The start is copied field by field for speed: it must be what a deep copy
    # gives, every list and dict its own, so play after it cannot change it.
    t, log = logged()
    three_turns(t, log)
    step(t, log, 0, "c1-b1")
    state = t.state
    kept = snapshot(state)
    assert kept == copy.deepcopy({k: getattr(state, k) for k in POSITION})

    def mutable(obj):
        if isinstance(obj, dict):
            yield obj
            for v in obj.values():
                yield from mutable(v)
        elif isinstance(obj, list):
            yield obj
            for v in obj:
                yield from mutable(v)

    live = {id(o) for k in POSITION for o in mutable(getattr(state, k))}
    assert not live & {id(o) for o in mutable(kept)}
    before = copy.deepcopy(kept)
    step(t, log, 0, "b1-a1; end")
    for piece in state.pieces.values():
        piece["fired"] = True
    state.supply[0]["C"] -= 1
    state.fire["a9"] = 0
    assert kept == before


def test_a_take_back_puts_back_the_requesters_last_turn_start_mid_game():
    t, log = logged()
    three_turns(t, log)
    step(t, log, 0, "c1-b1; end")  # seat 0's turn 2
    before = views(t)  # seat 1's turn 2 begins: its fire on d3 has gone out
    assert t.state.fire == {} and t.state.turns == [2, 1] and t.state.moves_left == 6
    # d5 d4 d3 d2: 4 moves, fire left on d2; then a step and the end
    ev = step(t, log, 1, "fire d6 d2; d6-c6; end")
    assert ev[0].payload["hit"] is None and t.state.fire == {"d2": 1}
    step(t, log, 0, "b1-a1; end")  # seat 0's turn 3
    step(t, log, 1, "take back")  # seat 1 asks back its turn 2
    ev = step(t, log, 0, "accept")
    assert ev[0].payload == {"move": {"type": "accept"}, "seat": 0, "asked_by": 1, "turn": 2,
                             "moves": 6}
    assert views(t) == before
    assert board_of(t) == {"b1": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z", "d6": "1C"}
    assert t.to_act() == [1] and t.state.turns == [2, 1]
    assert Table.replay(log).state == t.state


def test_a_declined_take_back_goes_on_with_the_turn():
    t, log = logged()
    three_turns(t, log)
    step(t, log, 0, "c1-b1")
    before = views(t)
    step(t, log, 0, "take back")
    ev = step(t, log, 1, "decline")
    assert types(ev) == ["take-back-declined"]
    assert t.to_act() == [0] and t.state.moves_left == 5
    for v in VIEWERS:
        assert {**views(t)[v], "asked_this_turn": []} == before[v]
    assert refused(t, 0, "take back", IllegalMove).rule == "already-asked"
    assert {"type": "take-back"} not in t.engine.legal(t.state, 0)


def test_no_take_back_without_a_finished_turn_of_ones_own():
    t, log = logged()
    assert {"type": "take-back"} not in t.engine.legal(t.state, 0)
    assert refused(t, 0, "take back", IllegalMove).rule == "no-turn-to-take-back"
    step(t, log, 0, "end")
    # seat 1's first turn: it has finished none
    assert refused(t, 1, "take back", IllegalMove).rule == "no-turn-to-take-back"
    step(t, log, 1, "end")
    assert {"type": "take-back"} in t.engine.legal(t.state, 0)
    step(t, log, 0, "take back")
    step(t, log, 1, "accept")
    # Turn 1 of seat 0 is being played again: nothing of its own is finished since.
    assert t.state.turns == [0, 0]
    assert refused(t, 0, "take back", IllegalMove).rule == "no-turn-to-take-back"
    step(t, log, 0, "end")
    step(t, log, 1, "end")
    assert {"type": "take-back"} in t.engine.legal(t.state, 0)
    # Seat 1 finished its turn 1 after the take-back: it may ask in its turn 2.
    step(t, log, 0, "end")
    assert {"type": "take-back"} in t.engine.legal(t.state, 1)


def test_hidden_danger_refuses_take_backs_but_not_draws():
    t = table({"variant": "hidden-danger"})
    act(t, 0, "smuggle C; end")
    act(t, 1, "end")
    assert {"type": "take-back"} not in t.engine.legal(t.state, 0)
    err = refused(t, 0, "take back", IllegalMove)
    assert err.rule == "no-take-back-in-hidden-danger"
    # the refusal names the rule and says nothing of the smuggled piece
    assert "Hidden Danger" in err.detail and "Cannon" not in err.detail and "d1" not in err.detail
    assert {"type": "offer-draw"} in t.engine.legal(t.state, 0)
    act(t, 0, "offer draw")
    assert types(act(t, 1, "accept"))[:2] == ["draw-accepted", "game-drawn"]


# ---- refusals -----------------------------------------------------------------------------

def test_refusals_change_nothing():
    t = table()
    act(t, 0, "c1-b1")
    # Nothing to answer.
    for seat in (0, 1):
        for text in ("accept", "decline"):
            assert refused(t, seat, text, IllegalMove).rule == "nothing-pending"
    # Asking is for the seat to move.
    refused(t, 1, "offer draw", NotYourTurn)
    refused(t, 1, "take back", NotYourTurn)
    act(t, 0, "offer draw")
    # The asker waits: no second offer, no action, no end of its turn.
    for text in ("offer draw", "take back", "b1-a1", "end", "accept", "decline"):
        assert refused(t, 0, text, IllegalMove).rule == "awaiting-answer"
    # The opponent answers, and does nothing else first.
    for text in ("offer draw", "take back", "d9-d8", "end", "add C"):
        assert refused(t, 1, text, IllegalMove).rule == "answer-first"
    # A batch answering and then acting in the opponent's turn is refused whole.
    assert refused(t, 1, "decline; d9-d8", NotYourTurn)
    assert t.state.pending == {"kind": "draw", "by": 0}


def test_refusals_through_the_api_are_problem_json_and_change_nothing(tmp_path):
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble
    from tests.helpers import Game

    app = create_app(assemble(open_store(f"sqlite:///{tmp_path}/consent.db"), InlineQueue()))
    g = Game(app.test_client(), "castle-danger", ["Ann", "Bob"], {"variant": "hidden-danger"})
    assert g.post(0, {"text": "end"}).status_code == 201
    assert g.post(1, {"text": "end"}).status_code == 201
    version = g.summary()["version"]
    for seat, body, rule in [
        (0, {"move": {"type": "take-back"}}, "no-take-back-in-hidden-danger"),
        (0, {"text": "accept"}, "nothing-pending"),
        (1, {"move": {"type": "decline"}}, "nothing-pending"),
    ]:
        r = g.post(seat, body)
        assert r.status_code == 422 and r.content_type == "application/problem+json", r.json
        assert r.json["code"] == "illegal-move" and r.json["rule"] == rule
        assert g.summary()["version"] == version
    r = g.post(0, {"move": {"type": "offer-draw", "to": "b1"}})
    assert r.status_code == 400 and r.json["field"] == "move.to"
    assert g.post(0, {"text": "offer draw"}).status_code == 201
    assert g.summary()["to_act"] == [1]
    assert g.legal(1) == ANSWERS
    r = g.post(0, {"text": "offer draw"})
    assert r.status_code == 422 and r.json["rule"] == "awaiting-answer"
    assert g.post(1, {"text": "decline"}).status_code == 201
    assert g.summary()["to_act"] == [0]


# ---- notation ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,move", [
    ("offer draw", {"type": "offer-draw"}), ("Offer-Draw", {"type": "offer-draw"}),
    ("take back", {"type": "take-back"}), ("takeback", {"type": "take-back"}),
    ("TAKE-BACK", {"type": "take-back"}), ("accept", {"type": "accept"}),
    ("Decline", {"type": "decline"}),
])
def test_notation_reads_the_consent_moves(text, move):
    eng = table().engine
    assert eng.parse(text) == [move]
    assert eng.parse(eng.format(move)) == [move]


def test_the_legal_list_writes_the_consent_moves_as_text():
    t = table()
    act(t, 0, "end")
    act(t, 1, "end")
    texts = [t.engine.format(m) for m in t.engine.legal(t.state, 0)]
    assert texts[-3:] == ["offer draw", "take back", "resign"]
    act(t, 0, "offer draw")
    assert [t.engine.format(m) for m in t.engine.legal(t.state, 1)] == ["accept", "decline", "resign"]
    # the old notation still reads as before
    assert t.engine.parse("add B; c1-b1; fire c3 c7; end")[1] == {"type": "move", "from": "c1", "to": "b1"}


def test_the_diagram_and_the_log_say_what_is_asked():
    t, log = logged()
    step(t, log, 0, "offer draw")
    assert "ann (seat 0) offers a draw: bob (seat 1) to accept or decline" in t.engine.render(t.state, 1)
    step(t, log, 1, "decline")
    assert t.engine.narrate(log[-1], ["ann", "bob"]) == "bob declines ann's draw"
    step(t, log, 0, "end")
    step(t, log, 1, "end")
    step(t, log, 0, "take back")
    assert "ann (seat 0) asks to take back its turn 1" in t.engine.render(t.state, None)
    step(t, log, 1, "accept")
    assert t.engine.narrate(log[-1], ["ann", "bob"]) == \
        "bob accepts: ann's turn 1 is taken back, to be played again with 6 moves"


# ---- bots, timeouts -----------------------------------------------------------------------

@pytest.mark.parametrize("kind", bots.KINDS)
def test_a_bot_never_asks_and_declines_what_it_is_asked(kind):
    t = table()
    act(t, 0, "end")
    act(t, 1, "end")
    assert {"type": "take-back"} in t.engine.legal(t.state, 0)
    for n in range(20):
        move = bots.choose(kind, t, 0, Rng(SEED, n))
        assert move["type"] not in ("offer-draw", "take-back", "accept", "decline", "resign")
    act(t, 0, "offer draw")
    assert bots.choose(kind, t, 1, Rng(SEED, 1)) == {"type": "decline"}


def test_a_bot_seat_declines_a_draw_offer():
    created = Table.created_event("castle-danger", "g-bot", ["ann", "bot"], {}, SEED, False,
                                  bots={1: "basic"})
    t = Table.from_created(created)
    log = [created]
    step(t, log, 0, "offer draw")
    assert types(log[-2:]) == ["draw-offered", "draw-declined"]
    assert log[-1].actor == 1 and t.to_act() == [0] and t.state.result is None


def test_a_timeout_with_an_offer_pending_declines_it():
    t, log = logged({"clock": {"move_seconds": 60, "on_timeout": "autoplay"}})
    step(t, log, 0, "offer draw")
    events, fork = t.propose_timeout(1, "2999-01-01T00:00:00.000000Z", seed=SEED)
    t.commit(fork)
    log += events + t.settle_all(SEED)
    assert types(log[-2:]) == ["seat-timed-out", "draw-declined"]
    assert log[-1].actor == 1 and t.to_act() == [0]
    assert audit(export(log))["valid"]


# ---- the audit ----------------------------------------------------------------------------

def consent_game():
    t, log = logged()
    three_turns(t, log)
    step(t, log, 0, "offer draw")
    step(t, log, 1, "decline")
    step(t, log, 0, "take back")
    step(t, log, 1, "accept")
    step(t, log, 0, "add Z; end")
    step(t, log, 1, "offer draw")
    step(t, log, 0, "accept")
    return t, log


def test_a_game_with_offers_and_take_backs_audits_valid():
    t, log = consent_game()
    report = audit(export(log))
    assert report["valid"] and report["seed"] == "verified", report
    assert report["result"]["reason"] == "draw agreed: seat 1 offered a draw and seat 0 accepted"


def test_a_tampered_accept_is_caught_by_the_audit():
    _, log = consent_game()
    lines = [json.loads(ev.to_json()) for ev in log]
    at = next(i for i, d in enumerate(lines) if d["type"] == "take-back-accepted")
    # The asker accepting its own take-back.
    forged = [dict(d) for d in lines]
    forged[at] = {**forged[at], "actor": 0}
    report = audit(reseal(forged))
    assert not report["valid"] and report["first_error"]["seq"] == at + 1
    assert report["first_error"]["code"] == "illegal-move"
    assert "awaiting-answer" in report["first_error"]["detail"]
    # A decline turned into an accept, its events left as a decline's.
    dec = next(i for i, d in enumerate(lines) if d["type"] == "draw-declined")
    forged = [dict(d) for d in lines]
    forged[dec] = {**forged[dec], "payload": {**forged[dec]["payload"], "move": {"type": "accept"}}}
    report = audit(reseal(forged))
    assert not report["valid"] and report["first_error"]["code"] == "diverges"
    assert report["first_error"]["seq"] == dec + 1
    # A take-back that claims to put back another turn.
    forged = [dict(d) for d in lines]
    forged[at] = {**forged[at], "payload": {**forged[at]["payload"], "turn": 2}}
    report = audit(reseal(forged))
    assert not report["valid"] and report["first_error"]["code"] == "diverges"


def test_a_log_of_the_previous_engine_version_still_audits_as_before():
    # Written by engine version 2 (before these moves existed), a random bot and
    # a basic one: their every choice must re-derive exactly as then.
    text = (Path(__file__).parent / "data" / "castle-danger-engine-v2-bots.jsonl").read_text()
    assert json.loads(text.splitlines()[0])["payload"]["engine_version"] == 2
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified", report
    assert report["result"]["winners"] == [1]


# ---- random games that ask and answer -----------------------------------------------------

@pytest.mark.parametrize("config", [{"turn_limit": 12}, {"edition": "3rd", "turn_limit": 12},
                                    {"variant": "hidden-danger", "turn_limit": 12}],
                         ids=["10th", "3rd", "hidden-danger"])
@pytest.mark.parametrize("seed", range(4))
def test_random_games_with_offers_and_take_backs_replay_and_audit(config, seed):
    import random

    from referee.autoplay import check_step
    from tests.games.test_castle_danger_properties import check_invariants

    rnd = random.Random(seed)
    t, log = new_table("castle-danger", 2, config, f"consent-{seed}")
    asked = []
    for _ in range(5000):
        if t.over:
            break
        seat = t.to_act()[0]
        legal = [m for m in t.engine.legal(t.state, seat) if m["type"] != "resign"]
        check_step(t, seat, legal)
        # ask now and then (a uniform pick would ask rarely and accept half the time)
        asks = [m for m in legal if m["type"] in ("offer-draw", "take-back")]
        move = rnd.choice(asks) if asks and rnd.random() < 0.1 else rnd.choice(legal)
        if move["type"] == "accept" and t.state.pending["kind"] == "draw" and rnd.random() < 0.8:
            move = {"type": "decline"}  # so that games go on to take-backs too
        asked.append(move["type"])
        play(t, seat, move, f"consent-{seed}", log)
        if t.state.pending is None:  # (while one is pending the opponent of the mover acts)
            check_invariants(t, log)
    assert t.over
    assert Table.replay(log).state == t.state
    report = audit(export(log))
    assert report["valid"] and report["seed"] == "verified", report
    assert "offer-draw" in asked
    if config.get("variant") != "hidden-danger":
        assert "take-back" in asked and any(e.type == "take-back-accepted" for e in log)


def test_no_proposal_changes_the_position_it_was_proposed_on():
    # A move's copy of the state shares the kept turn starts with the cached
    # position (referee/table.py): this holds only while nothing edits them in place.
    # Random games that ask for take-backs and accept them: every legal move and
    # every answer (a draw offer too) is proposed, and the position proposed on must stay as it was.
    import pickle
    import random

    rnd = random.Random(7)
    for game in range(4):
        t, log = logged()
        for _ in range(160):
            if t.over:
                break
            seat = t.to_act()[0]
            everything = [m for m in t.engine.legal(t.state, seat) if m["type"] != "resign"]
            legal = [m for m in everything if m["type"] != "offer-draw"]  # played: no draws
            before = pickle.dumps(t.state)
            for move in everything:
                t.propose(seat, [move], seed=SEED)
                assert pickle.dumps(t.state) == before, f"proposing {move} changed the position"
            asks = [m for m in legal if m["type"] in ("take-back", "accept")]
            choice = rnd.choice(asks) if asks and rnd.random() < 0.4 else rnd.choice(legal)
            play(t, seat, choice, SEED, log)
        assert any(ev.type == "take-back-accepted" for ev in log), f"game {game} took nothing back"
