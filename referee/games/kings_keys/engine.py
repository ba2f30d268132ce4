"""The King's Keys referee: deals, turns at the field, scoring and the rotations.

A hand goes: the referee deals (``dealt``); if four cards of one colour and item
lie in the field the hand is forfeit (``hand-forfeited``) and the same dealer
deals again. Otherwise, from the seat left of the dealer, each player in turn
plays a hand card to the field (``played``) and the top of the draw pile is
turned up and played for them (``drawn``); when that card could take more than
one pile, the player picks one (``chose``). Once the dealer has played the last
hand card the referee scores the collections (``hand-scored``) and the deal
passes left; after every seat has dealt three times, ``game-ended``.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as default

from referee.events import Draft, Event
from referee.games.base import (
    ADMIN,
    BadOptions,
    Engine,
    GameState,
    IllegalMove,
    NotYourTurn,
    Viewer,
    check_deck,
    check_option_names,
    house_rule,
    json_copy,
    on_resign_option,
    seat_option,
    stacked_deck,
)
from referee.games.copying import large_json_copy
from referee.games.kings_keys import notation, text
from referee.games.kings_keys.cards import deck, hand_size, sorted_cards
from referee.games.kings_keys.field import (
    completes_group,
    fours,
    group_field,
    left_in,
    pile_of,
    takeable,
    without,
)
from referee.games.kings_keys.scoring import best_arrangement
from referee.games.leaving import without_leavers

ROTATIONS = 3  # every seat deals this many (counted) hands
# House rule (docs/games/kings-keys.md, R8): what a wild card may stand for when
# scoring, any card of its colour or item (default) or only one not held.
WILD_STANDS_FOR = ("any", "not-held")
# House rule (R1): whether a card that matches must take (default) or may stay in
# the field.
MATCH = ("compulsory", "optional")
OPTIONS = ("wild_cards", "first_dealer", "deck", "wild_stands_for", "match", "on_resign")
# The referee's step owed at each stage (asked at every card: made once, not per call)
STEPS = {"deal": "deal the hand", "forfeit": "gather a forfeited deal for the same dealer to deal again",
         "score": "score the hand", "end": "end the game"}


@dataclass(kw_only=True)
class KingsKeysState(GameState):
    # deal -> (forfeit -> deal) -> play/choose ... -> score -> deal ... -> end
    stage: str = "deal"
    stacked: bool = False
    dealer: int = 0
    deals: int = 0  # deals made, forfeited ones included: picks the explicit deck
    hands_played: int = 0  # hands scored (forfeited deals do not count)
    dealt_by: list[int] = default(default_factory=list)  # scored hands per dealer
    hands: list[list[str]] = default(default_factory=list)
    field: list[list[str]] = default(default_factory=list)
    pile: list[str] = default(default_factory=list)
    collected: list[list[str]] = default(default_factory=list)
    totals: list[int] = default(default_factory=list)
    turn: int = 0
    drawn: str | None = None  # the pile's card waiting for the player's choice
    last_hand: dict | None = None


class KingsKeys(Engine):
    name = "kings-keys"
    title = "King's Keys"
    min_players, max_players = 3, 4
    # 2: wild cards may stand for cards held (ruling R8); 3: the house rule
    # wild_stands_for; 4: the house rules match and on_resign, games of players (referee/seeing.py)
    version = 4
    players_since = 4
    # Games created before a house rule were played as its default reads.
    later_options = {"wild_stands_for": (3, "any"), "match": (4, "compulsory"), "on_resign": (4, "end")}

    # ---- creating ------------------------------------------------------------------

    def setup(self, options: dict, players: int) -> dict:
        check_option_names(options, OPTIONS, self.title)
        wild = options.get("wild_cards", False)
        if not isinstance(wild, bool):
            raise BadOptions("wild_cards must be true or false", field="wild_cards")
        first = seat_option(options, "first_dealer", players)
        out = {"wild_cards": wild, "first_dealer": first,
               "wild_stands_for": house_rule(options, "wild_stands_for", WILD_STANDS_FOR),
               "match": house_rule(options, "match", MATCH),
               "on_resign": on_resign_option(options)}
        if options.get("deck") is not None:
            check_deck(options, "deck", deck(wild))
            out["deck"] = options["deck"]
        return out

    def start(self, created: dict) -> KingsKeysState:
        n = len(created["seats"])
        return KingsKeysState(
            players=n, options=self.created_options(created), names=[s["name"] for s in created["seats"]],
            stacked=bool(created.get("stacked")), dealer=created["options"]["first_dealer"],
            dealt_by=[0] * n, totals=[0] * n, collected=[[] for _ in range(n)],
            hands=[[] for _ in range(n)])

    # ---- referee steps ------------------------------------------------------------

    def due(self, state: KingsKeysState) -> str | None:
        if state.result is not None:
            return None
        return STEPS.get(state.stage)

    def settle(self, state: KingsKeysState, rng) -> list[Draft]:
        if state.stage == "deal":
            return [self._deal(state, rng)]
        if state.stage == "forfeit":
            return [Draft("hand-forfeited", {"dealer": state.dealer, "deal": state.deals,
                                             "kinds": fours(state.field)})]
        if state.stage == "score":
            return [self._score(state)]
        if state.stage == "end":
            return [Draft("game-ended", {"result": without_leavers(state, final_result(state.totals))})]
        return []

    def _deal(self, state: KingsKeysState, rng) -> Draft:
        wild = state.options["wild_cards"]
        cards = stacked_deck(state.options, "deck", state.deals, deck(wild), rng)
        n, per = state.players, hand_size(state.players, wild)
        # one card at a time from the seat left of the dealer: card k to seat
        # (dealer + 1 + k) mod n, so each seat's cards are every n-th, sliced
        hands = [cards[(s - state.dealer - 1) % n:n * per:n] for s in range(n)]
        field_size = {3: 10, 4: 8}[n]
        laid = cards[n * per:n * per + field_size]
        return Draft("dealt", {
            "dealer": state.dealer, "hand": state.hands_played + 1, "deal": state.deals + 1,
            "hands": hands, "field": group_field(laid), "pile": cards[n * per + field_size:]})

    def _score(self, state: KingsKeysState) -> Draft:
        seats = []
        for s in range(state.players):
            best = best_arrangement(state.collected[s], state.options["wild_stands_for"] == "any")
            seats.append({"seat": s, "collected": sorted_cards(state.collected[s]), **best})
        points = [x["total"] for x in seats]
        return Draft("hand-scored", {
            "hand": state.hands_played + 1, "dealer": state.dealer, "seats": seats,
            "points": points, "totals": [t + p for t, p in zip(state.totals, points, strict=True)],
            "left_in_field": sorted_cards(c for pile in state.field for c in pile)})

    # ---- players' moves -------------------------------------------------------------

    def normalize(self, move: dict) -> dict:
        return notation.normalize(move)

    def parse_one(self, text_: str) -> dict:
        return notation.parse_one(text_)

    def format_move(self, move: dict) -> str:
        return notation.format_move(move)

    def decide_move(self, state: KingsKeysState, seat: int, move: dict) -> list[Draft]:
        return self._decide(state, seat, move)[0]

    def play(self, state: KingsKeysState, seat: int, move: dict) -> tuple[KingsKeysState, list[Draft]]:
        """A card played and its draw decided and applied in one pass (``Engine.play``):
        the field the played card leaves, which the decision works out to see what
        the drawn card may take, is the field the played event leaves, not worked
        out again, and the drawn event is applied as ``evolve_event`` applies it.
        Anything else (a choice, the pile's last card, a resignation, a refusal) as
        ``decide`` then ``evolve``."""
        # (a plain play while a hand card is to be played, no step due and the game
        # on: what admitted gives it, each of its checks passing; any other, admitted's)
        normal = notation.plain_play(move) if state.stage == "play" and state.result is None else None
        if normal is None:
            normal = self.admitted(state, seat, move)
            if normal is None:
                return super().play(state, seat, move)
        drafts, after = self._decide(state, seat, normal, named=normal)
        if after is None:
            for draft in drafts:
                state = self.evolve(state, draft)
            return state, drafts
        # the played event, as evolve_event applies it while the pile is not empty
        card, took = normal["card"], drafts[0].payload["took"]
        state.hands[seat].remove(card)
        if took:
            state.collected[seat] += [card] + list(took)
        state.field = after
        self._draw(state, drafts[1].payload)  # the drawn event, as evolve_event applies it
        return state, drafts

    def _decide(self, state: KingsKeysState, seat: int, move: dict,
                named: dict | None = None) -> tuple[list[Draft], list | None]:
        """``decide_move``'s events, and the field the played card leaves when the
        decision worked it out (a card played while the pile is not empty), else None.
        ``named``: the move the first event names (``with_move``'s, written at once)."""
        if seat != state.turn or state.stage not in ("play", "choose"):
            raise NotYourTurn(f"it is seat {state.turn}'s turn")
        if move["type"] == "choose":
            if state.stage != "choose":
                raise IllegalMove("nothing-to-choose",
                                  "no card from the draw pile is waiting for a choice")
            if move.get("leave"):
                self._check_leave(state, state.field, state.drawn)
                pile = []
            else:
                pile = self._target(state.field, state.drawn, move["take"])
            return [Draft("chose", _named(named, {"seat": seat, "card": state.drawn, "took": pile}))], None
        if state.stage == "choose":
            raise IllegalMove("choose-first", f"first choose what {state.drawn} takes")
        card = move["card"]
        if card not in state.hands[seat]:
            raise IllegalMove("not-in-hand", f"{card} is not in your hand")
        if move.get("leave"):
            self._check_leave(state, state.field, card)
            took = []
        elif "take" in move:
            took = self._target(state.field, card, move["take"])
        else:
            options = takeable(state.field, card)
            if len(options) > 1:
                raise IllegalMove("take-needed", f"{card} could take {_say(options)}: name one"
                                  " with take", options=[p[0] for p in options])
            took = list(options[0]) if options else []
        drafts = [Draft("played", _named(named, {"seat": seat, "card": card, "took": took}))]
        after = None
        if state.pile:
            after = without(state.field, took) if took else left_in(state.field, card)
            top = state.pile[0]
            options = takeable(after, top)
            # (may the drawn card stay: _may_leave, its piles found already)
            if len(options) > 1 or (options and state.options["match"] == "optional"
                                    and not completes_group(after, top)):
                drafts.append(Draft("drawn", {"seat": seat, "card": top, "took": [],
                                              "choices": [list(p) for p in options]}))
            else:
                drafts.append(Draft("drawn", {"seat": seat, "card": top,
                                              "took": list(options[0]) if options else []}))
        return drafts, after

    @staticmethod
    def _may_leave(state: KingsKeysState, field_: list[list[str]], card: str) -> bool:
        """Whether ``card`` may stay in the field: when it matches nothing, or with
        ``match: optional`` unless it is the fourth of a group (all four of a kind
        lying in the field is the deal's forfeit, never a player's choice)."""
        if not takeable(field_, card):
            return True
        return state.options["match"] == "optional" and not completes_group(field_, card)

    def _check_leave(self, state: KingsKeysState, field_: list[list[str]], card: str) -> None:
        if self._may_leave(state, field_, card):
            return
        if completes_group(field_, card):
            raise IllegalMove("must-take", f"{card} is the fourth of its kind: it takes the group"
                              " (all four may not lie in the field)")
        raise IllegalMove("must-take", f"{card} matches {_say(takeable(field_, card))}: a match"
                          " must be taken (house rule match: compulsory)")

    @staticmethod
    def _target(field_: list[list[str]], card: str, take: str) -> list[str]:
        pile = pile_of(field_, take)
        if pile is None:
            raise IllegalMove("not-in-field", f"{take} is not in the field")
        if pile not in takeable(field_, card):
            raise IllegalMove("cannot-take", f"{card} does not match {take}")
        return list(pile)

    # ---- applying events --------------------------------------------------------------

    def evolve_event(self, state: KingsKeysState, event: Event) -> KingsKeysState:
        p = event.payload
        t = event.type
        if t == "dealt":
            state.hands = [list(h) for h in p["hands"]]
            state.field = [list(pile) for pile in p["field"]]
            state.pile = list(p["pile"])
            state.collected = [[] for _ in range(state.players)]
            state.deals += 1
            state.drawn = None
            state.turn = (state.dealer + 1) % state.players
            state.stage = "forfeit" if fours(state.field) else "play"
        elif t == "hand-forfeited":
            state.hands = [[] for _ in range(state.players)]
            state.field, state.pile = [], []
            state.stage = "deal"
        elif t == "played":
            seat = p["seat"]
            state.hands[seat].remove(p["card"])
            self._lay(state, seat, p["card"], p["took"])
            if state.pile:
                state.stage = "draw"  # the drawn event of the same move follows
            else:
                self._end_turn(state)
        elif t == "drawn":
            self._draw(state, p)
        elif t == "chose":
            self._lay(state, p["seat"], p["card"], p["took"])
            state.drawn = None
            self._end_turn(state)
        elif t == "hand-scored":
            state.totals = list(p["totals"])
            state.last_hand = large_json_copy(p)  # never share a logged payload
            state.hands_played += 1
            state.dealt_by[state.dealer] += 1
            state.dealer = (state.dealer + 1) % state.players
            state.field, state.pile = [], []
            state.stage = "end" if min(state.dealt_by) >= ROTATIONS else "deal"
        elif t == "game-ended":
            state.result = json_copy(p["result"])
            state.stage = "over"
        else:
            raise ValueError(f"unknown King's Keys event {t!r}")
        return state

    def _draw(self, state: KingsKeysState, p: dict) -> None:
        """A ``drawn`` event applied: the pile's top card waits for its seat's choice,
        or is laid (taking its pile, if any) and the turn ends."""
        state.pile.pop(0)
        if p.get("choices"):
            state.drawn = p["card"]
            state.stage = "choose"
        else:
            self._lay(state, p["seat"], p["card"], p["took"])
            self._end_turn(state)

    @staticmethod
    def _lay(state: KingsKeysState, seat: int, card: str, took: list[str]) -> None:
        if took:
            state.field = without(state.field, took)
            state.collected[seat] += [card] + list(took)
        else:
            state.field = left_in(state.field, card)

    @staticmethod
    def _end_turn(state: KingsKeysState) -> None:
        state.turn = (state.turn + 1) % state.players
        state.stage = "score" if not any(state.hands) else "play"

    # ---- questions ------------------------------------------------------------------

    def to_act(self, state: KingsKeysState) -> list[int]:
        return [state.turn] if state.stage in ("play", "choose") else []

    def legal_moves(self, state: KingsKeysState, seat: int) -> list[dict]:
        if seat != state.turn:
            return []
        if state.stage == "choose":
            moves = [{"type": "choose", "take": c}
                     for pile in takeable(state.field, state.drawn) for c in pile]
            return moves + ([{"type": "choose", "leave": True}]
                            if self._may_leave(state, state.field, state.drawn) else [])
        if state.stage != "play":
            return []
        moves = []
        for card in state.hands[seat]:
            options = takeable(state.field, card)
            if len(options) <= 1:
                moves.append({"type": "play", "card": card})
            else:
                moves += [{"type": "play", "card": card, "take": c} for pile in options for c in pile]
            if options and self._may_leave(state, state.field, card):
                moves.append({"type": "play", "card": card, "leave": True})
        return moves

    def scores(self, state: KingsKeysState) -> list:
        return list(state.totals)

    def view(self, state: KingsKeysState, viewer: Viewer) -> dict:
        out = {
            "game": self.name, "stage": state.stage, "stacked": state.stacked,
            "wild_cards": state.options["wild_cards"],
            "wild_stands_for": state.options["wild_stands_for"], "match": state.options["match"],
            "on_resign": state.options["on_resign"], "left": list(state.left),
            "hand_number": state.hands_played + (0 if state.stage in ("deal", "end", "over") else 1),
            "dealer": state.dealer, "dealt_by": list(state.dealt_by),
            "turn": state.turn if state.stage in ("play", "choose") else None,
            "to_act": self.acting(state),
            "field": [list(p) for p in state.field], "drawn": state.drawn,
            "pile_size": len(state.pile), "hand_sizes": [len(h) for h in state.hands],
            "collected": [sorted_cards(c) for c in state.collected],
            "totals": list(state.totals), "last_hand": state.last_hand,
            "result": state.result,
        }
        if viewer == ADMIN:
            out["hands"] = [list(h) for h in state.hands]
            out["pile"] = list(state.pile)
        elif isinstance(viewer, int) and 0 <= viewer < state.players:
            out["seat"] = viewer
            out["hand"] = sorted_cards(state.hands[viewer])
        return out

    def redact(self, event: Event, viewer: Viewer) -> dict:
        p = event.payload
        if event.type != "dealt" or viewer == ADMIN:
            return p
        return {"dealer": p["dealer"], "hand": p["hand"], "deal": p["deal"], "field": p["field"],
                "hands": [h if s == viewer else None for s, h in enumerate(p["hands"])],
                "hand_sizes": [len(h) for h in p["hands"]], "pile_size": len(p["pile"])}

    def render(self, state: KingsKeysState, viewer: Viewer) -> str:
        return text.render(self.view(state, viewer), state.names)

    def describe(self, event: Event) -> str:
        return text.describe(event, self.format)


def final_result(totals: list[int]) -> dict:
    """The highest total wins; seats tied for it share the win (a draw)."""
    best = max(totals)
    winners = [s for s, t in enumerate(totals) if t == best]
    if len(winners) == 1:
        reason = f"seat {winners[0]} has the highest total, {best}, after every seat dealt three times"
    else:
        reason = (f"draw: seats {', '.join(map(str, winners))} tie on {best}"
                  " after every seat dealt three times")
    return {"winners": winners, "reason": reason, "scores": list(totals)}


def _named(move: dict | None, payload: dict) -> dict:
    """``payload`` naming ``move`` first (as ``with_move`` writes it), or as it is."""
    return payload if move is None else {"move": move, **payload}


def _say(piles: list[list[str]]) -> str:
    return " or ".join("+".join(p) for p in piles)
