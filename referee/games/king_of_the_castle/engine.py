"""King of the Castle: the engine the referee drives."""

from __future__ import annotations

from itertools import combinations

from referee.games.base import (
    BadOptions,
    Engine,
    IllegalMove,
    NotYourTurn,
    check_deck,
    check_option_names,
    house_rule,
    on_resign_option,
    seat_option,
    with_move,
)
from referee.games.king_of_the_castle import flow, notation, scoring, views
from referee.games.king_of_the_castle.cards import CATALOGUE, LETTERS, REACTIONS
from referee.games.king_of_the_castle.evolve import APPLY
from referee.games.king_of_the_castle.flow import Script, advance
from referee.games.king_of_the_castle.plays import check_play, plays
from referee.games.king_of_the_castle.state import CastleState
from referee.games.leaving import without_leavers

# House rules (docs/games/king-of-the-castle.md, rulings 7 and 3): the readings, default first;
# bonus_ties (ruling 3): who earns the Seneschal's and the Master at Arms' bonuses
# when castles tie for the most Prestige or Defences.
HOUSE_RULES = {"reactions": ("one-per-seat", "one-per-card"), "react_to_own_card": (False, True),
               "bonus_ties": ("leftmost", "all", "none")}
OPTIONS = ("squires", "personality_order", "first_player", "first_dealer",
           "personality_deck", "event_deck", *HOUSE_RULES, "on_resign")
WINDOW_CARD = {"death": "lucky-escape", "discard": "not-that-bad"}


def _deck_option(options: dict, key: str, cards: list[str]) -> list[str] | None:
    given = options.get(key)
    if given is None:
        return None
    if isinstance(given, list) and given and isinstance(given[0], list):
        raise BadOptions(f"{key} is one order of the cards, top first (there is a single deal)", field=key)
    check_deck(options, key, cards)
    return list(given)


class KingOfTheCastle(Engine):
    name = "king-of-the-castle"
    title = "King of the Castle"
    min_players, max_players = 2, 8
    # 2: standing_fresh; 3: the house rules on reactions, and the Lord of the leftmost
    # castle earning the largest castle's bonus at level 0 (zero_level_lord_bonus);
    # 4: the house rules bonus_ties and on_resign, games of players (referee/seeing.py)
    version = 4
    players_since = 4
    # Games created before a house rule were played under what is now its default.
    later_options = {"reactions": (3, "one-per-seat"), "react_to_own_card": (3, False),
                     "bonus_ties": (4, "leftmost"), "on_resign": (4, "end")}

    # ---- setting up ------------------------------------------------------------------

    def setup(self, options: dict, players: int) -> dict:
        check_option_names(options, OPTIONS, self.title)
        squires = options.get("squires", "random")
        if squires not in ("random", "choose", "letters"):
            raise BadOptions("squires is random, choose or letters", field="squires")
        if squires == "letters" and players > 6:
            raise BadOptions("squires by letters needs 2 to 6 players (the deck's letters run out)",
                             field="squires")
        order = options.get("personality_order", "shuffled")
        if order not in ("shuffled", "alphabetical"):
            raise BadOptions("personality_order is shuffled or alphabetical", field="personality_order")
        people = _deck_option(options, "personality_deck", LETTERS)
        if people is not None and order == "alphabetical":
            raise BadOptions("an alphabetical personality order leaves no deck to give",
                             field="personality_deck")
        return {"squires": squires, "personality_order": order,
                "first_player": seat_option(options, "first_player", players),
                "first_dealer": seat_option(options, "first_dealer", players),
                "personality_deck": people,
                "event_deck": _deck_option(options, "event_deck", CATALOGUE),
                **{name: house_rule(options, name, readings) for name, readings in HOUSE_RULES.items()},
                "on_resign": on_resign_option(options)}

    def start(self, created: dict) -> CastleState:
        opts = self.created_options(created)
        n = len(created["seats"])
        return CastleState(players=n, options=opts, names=[s["name"] for s in created["seats"]],
                           stacked=bool(created.get("stacked")), first_player=opts["first_player"],
                           next_seat=opts["first_player"], squires=[None] * n, set_aside=[],
                           hands=[[] for _ in range(n)], standing=["ask"] * n, turns_taken=[0] * n,
                           # Chosen squires are chosen first, before anything is dealt,
                           # as the letters deal sets them before the kingdom.
                           stage="choose" if opts["squires"] == "choose" else "deal",
                           # A game keeps the scoring it was created with (ruling 3).
                           zero_level_lord_bonus=self.made_by(created) >= 3)

    # ---- the log ---------------------------------------------------------------------

    def evolve_event(self, state, event):
        APPLY[event.type](state, event.payload)
        if event.type != "standing-set":
            state.standing_fresh = []  # the game moved on: standing answers may change again
        return state

    def due(self, state) -> str | None:
        return flow.due(state)

    def settle(self, state, rng):
        step = flow.due(state)
        script = Script(state)
        if step == "deal":
            script.emit("dealt", flow.deal(state, rng))
        elif step == "reshuffle":
            script.emit("reshuffled", {"deck": rng.shuffle(state.event_discard)})
        elif step == "steal":
            r = state.random_pending
            hand = state.hands[r["from"]]
            script.emit("stolen", {"from": r["from"], "to": r["to"], "card": hand[rng.randbelow(len(hand))]})
        elif step == "random-discard":
            seat = state.random_pending["seat"]
            hand = state.hands[seat]
            script.emit("lost", {"seat": seat, "card": hand[rng.randbelow(len(hand))]})
        elif step == "score":
            script.emit("game-ended", {"result": without_leavers(state, scoring.result(state))})
            return script.drafts
        else:
            return []
        advance(script)
        return script.drafts

    # ---- players' moves --------------------------------------------------------------

    # the notation's own function, not a method calling it: asked at every move
    normalize = staticmethod(notation.normalize)

    def _run(self, state, in_place: bool, kind: str, payload: dict):
        script = Script(state, copied=not in_place)
        script.emit(kind, payload)
        advance(script)
        return script.drafts

    def decide_move(self, state, seat: int, move: dict):
        return self._decide(state, seat, move, in_place=False)

    def play(self, state, seat: int, move: dict):
        """A player's move decided and applied in one pass (``Engine.play``): its
        script (the move's event and all that play then does by itself, ``advance``)
        is written on the state itself rather than on a copy, as each event is
        applied to decide the next; the events are ``decide``'s. A resignation as
        ``decide`` then ``evolve``."""
        normal = self.admitted(state, seat, move)
        if normal is None:
            return super().play(state, seat, move)
        drafts = with_move(self._decide(state, seat, normal, in_place=True), normal)
        # what evolve_event does beside applying each event: an event other than a
        # standing answer's makes standing answers changeable again
        fresh = None
        for draft in drafts:
            if draft.type != "standing-set":
                fresh = []
            elif fresh is not None:
                fresh.append(draft.payload["seat"])
        if fresh is not None:
            state.standing_fresh = fresh
        return state, drafts

    def _decide(self, state, seat: int, move: dict, in_place: bool):
        """``decide_move``; ``in_place``: its script written on ``state`` itself."""
        kind = move["type"]
        if not 0 <= seat < state.players:
            raise NotYourTurn(f"there is no seat {seat}")
        if kind == "standing":
            if state.standing[seat] == move["answer"]:
                raise IllegalMove("standing-unchanged", f"your standing answer is already {move['answer']}")
            if seat in state.standing_fresh:
                raise IllegalMove("standing-changed-already",
                                  "you changed your standing answer and nothing has happened since: "
                                  "changing it back would change nothing")
            return self._run(state, in_place, "standing-set", {"seat": seat, "answer": move["answer"]})
        if state.stage == "choose":
            if kind != "choose":
                raise IllegalMove("choose-squires-first", "every seat first chooses its three squires")
            if state.squires[seat] is not None:
                raise IllegalMove("already-chosen", "you have chosen your squires already")
            return self._run(state, in_place, "squires-chosen", {"seat": seat, "squires": move["squires"]})
        if kind == "choose":
            raise IllegalMove("not-choosing", "squires are chosen only before play, with squires: choose")
        window = state.window
        if kind == "react":
            return self._react(state, seat, move, in_place)
        if window is not None:
            if seat != window["queue"][0]:
                raise NotYourTurn(f"seat {window['queue'][0]} is being asked to answer")
            if kind == "pass":
                return self._run(state, in_place, "declined", {"seat": seat})
            raise IllegalMove("answer-first", "answer the card just played: react or pass")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn}'s turn")
        tasks, hand = state.tasks, state.hands[seat]
        if kind == "play":
            if not tasks:
                raise IllegalMove("discard-step", "you have played; discard down to three cards")
            card = move["card"]
            if tasks[0]["kind"] == "sudden":
                if card not in tasks[0]["cards"]:
                    raise IllegalMove("play-drawn-cards", f"play the cards drawn: {', '.join(tasks[0]['cards'])}")
            elif card not in hand:
                raise IllegalMove("not-in-hand", f"you hold no {card}")
            effect = check_play(state, seat, move)
            payload = {"seat": seat, "card": card}
            payload.update({k: move[k] for k in ("castle", "targets", "attribute", "take") if k in move})
            if "seat" in move:
                payload["victim"] = move["seat"]
            payload.update(effect)
            return self._run(state, in_place, "played", payload)
        if kind == "pass":
            if tasks and tasks[0]["kind"] == "free":
                return self._run(state, in_place, "passed", {"seat": seat})
            if tasks:
                raise IllegalMove("must-play-drawn", "the cards drawn by Sudden Changes are played at once")
            raise IllegalMove("discard-step", "discard down to three cards")
        if kind == "discard":
            if tasks:
                raise IllegalMove("not-discard-step", "discard comes after the play")
            need = len(hand) - 3
            if len(move["cards"]) != need:
                raise IllegalMove("discard-count", f"discard exactly {need} card(s), down to three")
            rest = list(hand)
            for c in move["cards"]:
                if c not in rest:
                    raise IllegalMove("not-in-hand", f"you hold no (more) {c}")
                rest.remove(c)
            return self._run(state, in_place, "discarded", {"seat": seat, "cards": list(move["cards"])})
        raise AssertionError(kind)

    def _react(self, state, seat: int, move: dict, in_place: bool):
        window = state.window
        if window is None:
            raise IllegalMove("no-window", "nothing is happening that a reaction could stop")
        if seat != window["queue"][0]:
            raise NotYourTurn(f"seat {window['queue'][0]} is being asked to answer")
        card = move["card"]
        if WINDOW_CARD[window["kind"]] != card:
            raise IllegalMove("wrong-reaction", f"{card} does not answer a {window['kind']}")
        if card not in state.hands[seat]:
            raise IllegalMove("not-in-hand", f"you hold no {card}")
        at_stake = self._at_stake(state)
        save = move.get("save")
        if save is None:
            if len(at_stake) > 1:
                raise IllegalMove("save-required", f"name the one to save: {', '.join(at_stake)}")
            save = at_stake[0]
        elif save not in at_stake:
            raise IllegalMove("not-at-stake", f"{save} is not at stake; at stake: {', '.join(at_stake)}")
        return self._run(state, in_place, "reacted", {"seat": seat, "card": card, "save": save})

    @staticmethod
    def _at_stake(state) -> list[str]:
        t = state.threat
        if state.window["kind"] == "death":
            return list(t["deaths"])
        return [d["card"] for d in t["discards"]]

    # ---- questions -------------------------------------------------------------------

    def to_act(self, state) -> list[int]:
        if state.stage == "choose":
            return [s for s in range(state.players) if state.squires[s] is None]
        if state.window is not None:
            return [state.window["queue"][0]]
        if state.stage == "play" and state.turn is not None:
            return [state.turn]
        return []

    def legal_moves(self, state, seat: int) -> list[dict]:
        toggle = ({"type": "standing", "answer": "ask" if state.standing[seat] == "pass" else "pass"}
                  if seat not in state.standing_fresh else None)
        out: list[dict] = []
        if state.stage == "choose":
            if state.squires[seat] is None:
                out = [{"type": "choose", "squires": list(c)} for c in combinations(LETTERS, 3)]
        elif state.window is not None:
            if seat == state.window["queue"][0]:
                out = [{"type": "pass"}]
                card = WINDOW_CARD[state.window["kind"]]
                if card in state.hands[seat]:
                    stake = self._at_stake(state)
                    if len(stake) == 1:
                        out.append({"type": "react", "card": card})
                    else:
                        out += [{"type": "react", "card": card, "save": s} for s in stake]
        elif state.stage == "play" and seat == state.turn:
            tasks, hand = state.tasks, state.hands[seat]
            if tasks and tasks[0]["kind"] == "sudden":
                for card in sorted(set(tasks[0]["cards"])):
                    out += plays(state, seat, card)
            elif tasks:
                out = [{"type": "pass"}]
                for card in sorted(set(hand)):
                    if card not in REACTIONS:
                        out += plays(state, seat, card)
            elif len(hand) > 3:
                seen = set()
                for combo in combinations(sorted(hand), len(hand) - 3):
                    if combo not in seen:
                        seen.add(combo)
                        out.append({"type": "discard", "cards": list(combo)})
        return out + ([toggle] if toggle else [])

    def scores(self, state) -> list:
        if state.result is not None:
            return list(state.result["scores"])
        return [0] * state.players

    def view(self, state, viewer) -> dict:
        return views.view(state, viewer)

    def redact(self, event, viewer) -> dict:
        return views.redact(event, viewer)

    def render(self, state, viewer) -> str:
        return views.render(state, viewer)

    def describe(self, event) -> str:
        return views.describe(event, self.format)

    # ---- notation --------------------------------------------------------------------

    def parse_one(self, text: str) -> dict:
        return notation.parse_one(text)

    def format_move(self, move: dict) -> str:
        return notation.format_move(move)
