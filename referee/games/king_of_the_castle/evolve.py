"""Applying the log's events to the state. Each event is a fact already decided
(by ``decide`` or ``settle``); applying it only writes it down.

Applying an event never changes its payload, and the state keeps a copy of every
list or dict of the payload it keeps (but ``game-ended``'s result, which nothing
changes): a draft's payload is applied as it is, uncopied (``flow.Script``; a
test checks it over random games)."""

from __future__ import annotations

from referee.games.king_of_the_castle.cards import LEVEL_CARDS
from referee.games.king_of_the_castle.kingdom import new_castle


def _finish_draw(state) -> None:
    owed, state.owed = state.owed, None
    if owed["purpose"] == "sudden":
        if owed["got"]:
            state.tasks.insert(0, {"kind": "sudden", "cards": list(owed["got"])})
    else:
        state.tasks = [{"kind": "free"}]


def _tidy_threat(state) -> None:
    t = state.threat
    if t is not None and not t["deaths"] and not t["discards"]:
        state.threat = None


def dealt(state, p: dict) -> None:
    state.king = p["king"]
    state.castles = [new_castle(*men) for men in p["castles"]]
    state.personality_deck = list(p["personality_deck"])
    state.event_deck = list(p["event_deck"])
    state.hands = [list(p["hands"][str(s)]) for s in range(state.players)]
    if p.get("squires") is not None:
        state.squires = [list(p["squires"][str(s)]) for s in range(state.players)]
    if p.get("set_aside") is not None:
        state.set_aside = [list(p["set_aside"][str(s)]) for s in range(state.players)]
    state.stage = "next"


def squires_chosen(state, p: dict) -> None:
    state.squires[p["seat"]] = list(p["squires"])
    if all(s is not None for s in state.squires):
        state.stage = "deal"  # every seat has chosen: now the referee deals


def turn_began(state, p: dict) -> None:
    seat = p["seat"]
    state.turn, state.stage, state.tasks = seat, "play", []
    state.next_seat = (seat + 1) % state.players
    state.owed = {"seat": seat, "n": max(0, 4 - len(state.hands[seat])), "purpose": "hand", "got": []}
    if state.owed["n"] == 0:
        _finish_draw(state)


def drew(state, p: dict) -> None:
    n = p["count"]
    cards, state.event_deck = state.event_deck[:n], state.event_deck[n:]
    owed = state.owed
    if owed["purpose"] == "sudden":
        owed["got"] += cards
    else:
        state.hands[p["seat"]] += cards
    owed["n"] -= n
    if owed["n"] == 0:
        _finish_draw(state)


def draw_short(state, p: dict) -> None:
    _finish_draw(state)


def reshuffled(state, p: dict) -> None:
    state.event_deck = state.event_deck + list(p["deck"])
    state.event_discard = []


def _take_card(state, seat: int, card: str) -> None:
    """A card leaves the player's hand, or the drawn cards he must play."""
    if state.tasks and state.tasks[0]["kind"] == "sudden":
        task = state.tasks[0]
        task["cards"].remove(card)
        if not task["cards"]:
            state.tasks.pop(0)
        return
    state.hands[seat].remove(card)
    if state.tasks and state.tasks[0]["kind"] == "free":
        state.tasks.pop(0)


def played(state, p: dict) -> None:
    seat, card = p["seat"], p["card"]
    _take_card(state, seat, card)
    castle = state.castles[p["castle"] - 1] if "castle" in p else None
    if card in LEVEL_CARDS:
        castle[LEVEL_CARDS[card][0]].append(card)
        return
    state.event_discard.append(card)
    if card == "timely-repairs":
        state.event_discard.remove(p["take"])
        castle[LEVEL_CARDS[p["take"]][0]].append(p["take"])
    elif card == "recycle":
        # The card taken was in the pile before Recycle joined it.
        state.event_discard.pop()
        state.event_discard.remove(p["take"])
        state.event_discard.append(card)
        state.hands[seat].append(p["take"])
    elif card == "sudden-changes":
        state.owed = {"seat": seat, "n": 2, "purpose": "sudden", "got": []}
    elif card == "unexpected-loss":
        state.random_pending = {"kind": "lose", "seat": p["victim"]}
    elif card == "targeted-theft":
        state.random_pending = {"kind": "steal", "from": p["victim"], "to": seat}
    if p.get("deaths") or p.get("discards"):
        state.threat = {"actor": seat, "deaths": list(p.get("deaths", [])),
                        "discards": [dict(d) for d in p.get("discards", [])],
                        "heir": p.get("heir"), "asked": []}


def passed(state, p: dict) -> None:
    if state.tasks and state.tasks[0]["kind"] == "free":
        state.tasks.pop(0)


def window_opened(state, p: dict) -> None:
    state.threat["asked"].append(p["kind"])
    state.window = {"kind": p["kind"], "queue": list(p["queue"])} if p["queue"] else None


def declined(state, p: dict) -> None:
    state.window["queue"].remove(p["seat"])
    if not state.window["queue"]:
        state.window = None


def reacted(state, p: dict) -> None:
    state.hands[p["seat"]].remove(p["card"])
    state.event_discard.append(p["card"])
    t = state.threat
    if p["card"] == "lucky-escape":
        t["deaths"].remove(p["save"])
    else:
        t["discards"] = [d for d in t["discards"] if d["card"] != p["save"]]
    # One reaction saves one man or one card; while others of this window's kind
    # are still at stake, the seats not yet asked are asked in turn (each seat
    # answers a threat once), so two Lucky Escapes can save two of the Plague's dead.
    # With the house rule reactions: one-per-card the seat that reacted is asked
    # again, and may play another reaction card or pass.
    w = state.window
    if state.options["reactions"] == "one-per-seat":
        w["queue"].remove(p["seat"])
    still = t["deaths"] if w["kind"] == "death" else t["discards"]
    if not w["queue"] or not still:
        state.window = None
    _tidy_threat(state)


def died(state, p: dict) -> None:
    for m in p["men"]:
        if m["post"] == "king":
            state.king = None
        else:
            state.castles[m["castle"] - 1][m["post"]] = None
        state.personality_discard.append(m["man"])
    state.threat["deaths"] = []
    _tidy_threat(state)


def promoted(state, p: dict) -> None:
    state.castles[p["from_castle"] - 1][p["from_post"]] = None
    if p["post"] == "king":
        state.king = p["man"]
    else:
        state.castles[p["castle"] - 1][p["post"]] = p["man"]


def appointed(state, p: dict) -> None:
    assert state.personality_deck[0] == p["man"]
    state.personality_deck.pop(0)
    state.castles[p["castle"] - 1][p["post"]] = p["man"]


def succession_failed(state, p: dict) -> None:
    state.ending = True


def levels_discarded(state, p: dict) -> None:
    for d in p["cards"]:
        state.castles[d["castle"] - 1][d["attribute"]].remove(d["card"])
        state.event_discard.append(d["card"])
    state.threat["discards"] = []
    _tidy_threat(state)


def fizzled(state, p: dict) -> None:
    state.tasks.pop(0)
    state.event_discard += p["cards"]


def stolen(state, p: dict) -> None:
    state.hands[p["from"]].remove(p["card"])
    state.hands[p["to"]].append(p["card"])
    state.random_pending = None
    state.tasks.insert(0, {"kind": "free"})


def lost(state, p: dict) -> None:
    state.hands[p["seat"]].remove(p["card"])
    state.event_discard.append(p["card"])
    state.random_pending = None


def discarded(state, p: dict) -> None:
    for c in p["cards"]:
        state.hands[p["seat"]].remove(c)
    state.event_discard += p["cards"]


def turn_ended(state, p: dict) -> None:
    seat = p["seat"]
    state.turns_taken[seat] += 1
    last_of_round = (state.first_player - 1) % state.players
    state.stage = "scoring" if state.ending and seat == last_of_round else "next"


def standing_set(state, p: dict) -> None:
    state.standing[p["seat"]] = p["answer"]
    state.standing_fresh.append(p["seat"])


def game_ended(state, p: dict) -> None:
    state.result = p["result"]
    state.stage = "over"


APPLY = {
    "dealt": dealt, "squires-chosen": squires_chosen, "turn-began": turn_began, "drew": drew,
    "draw-short": draw_short, "reshuffled": reshuffled, "played": played, "passed": passed,
    "window-opened": window_opened, "declined": declined, "reacted": reacted, "died": died,
    "promoted": promoted, "appointed": appointed, "succession-failed": succession_failed,
    "levels-discarded": levels_discarded, "fizzled": fizzled, "stolen": stolen, "lost": lost,
    "discarded": discarded, "turn-ended": turn_ended, "standing-set": standing_set,
    "game-ended": game_ended,
}
