"""King of Danger: the referee's rules engine (2 to 5 players).

Phases of a hand: ``deal`` (a referee step) -> ``play`` (tricks, each resolved
by the move that completes it) -> ``score`` (a referee step adding the trackers to
the scores) -> ``deal`` again, or ``end`` (a referee step writing the result).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

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
    check_players,
    house_rule,
    json_copy,
    on_resign_option,
    seat_option,
    stacked_deck,
)
from referee.games.king_of_danger import notation, text
from referee.games.king_of_danger.cards import DECK, in_order, is_wizard, suit_of
from referee.games.king_of_danger.deal import deal
from referee.games.king_of_danger.trick import (
    TRACKER_START,
    only_kings,
    trackers_after,
    winner,
)
from referee.games.leaving import without_leavers

DEAL, PLAY, SCORE, END = "deal", "play", "score", "end"
DEFAULT_TARGET = 31
MAX_TARGET = 1000
# House rule (docs/games/king-of-danger.md, R5): which cards oblige a seat to
# follow suit, its hand only (default) or, with two players, its face-up table cards too.
FOLLOW_SUIT = ("hand", "hand-and-table")
# House rule (R1): whether the trackers carry over from hand to hand (default) or
# every hand starts them at 3 again.
TRACKERS = ("carry", "reset")
OPTIONS = ("target", "first_dealer", "deck", "follow_suit", "trackers", "on_resign")
# The events a move writes (``play`` applies them itself).
_MOVE_EVENTS = frozenset(("card-played", "trick-won", "trick-set-aside"))
# The referee's step each phase owes (the phase of play owes none).
_STEPS = {DEAL: "deal", SCORE: "score-hand", END: "end-game"}


@dataclass(kw_only=True)
class KingOfDangerState(GameState):
    stacked: bool = False
    phase: str = DEAL
    hands_dealt: int = 0
    dealer: int = 0
    hands: list[list[str]] = field(default_factory=list)
    # Two players only: four stacks a seat; face_up[s][k] lies on face_down[s][k].
    face_up: list[list[str | None]] = field(default_factory=list)
    face_down: list[list[str | None]] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    leader: int = 0
    trick: list[list] = field(default_factory=list)  # [[seat, card], ...] in play order
    trick_suit: str | None = None
    tricks: list[dict] = field(default_factory=list)  # this hand's finished tricks
    trackers: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)


class KingOfDanger(Engine):
    name = "king-of-danger"
    title = "King of Danger"
    min_players, max_players = 2, 5
    version = 3  # 2: the house rule follow_suit; 3: the house rule trackers, games of players (referee/seeing.py)
    players_since = 3
    # Games created before version 2 were played with face-up cards obliging, and
    # before version 3 with the trackers carried over and a resignation ending the game.
    later_options = {"follow_suit": (2, "hand-and-table"), "trackers": (3, "carry"), "on_resign": (3, "end")}

    # ---- making a game -----------------------------------------------------------

    def setup(self, options: dict, players: int) -> dict:
        check_players(self, players)
        check_option_names(options, OPTIONS, self.title)
        target = options.get("target", DEFAULT_TARGET)
        if type(target) is not int or not 1 <= target <= MAX_TARGET:
            raise BadOptions(f"target must be a whole number from 1 to {MAX_TARGET}",
                             field="target")
        first_dealer = seat_option(options, "first_dealer", players)
        check_deck(options, "deck", list(DECK))
        out = {"target": target, "first_dealer": first_dealer,
               "follow_suit": house_rule(options, "follow_suit", FOLLOW_SUIT),
               "trackers": house_rule(options, "trackers", TRACKERS),
               "on_resign": on_resign_option(options)}
        if options.get("deck") is not None:
            out["deck"] = copy.deepcopy(options["deck"])
        return out

    def start(self, created: dict) -> KingOfDangerState:
        n = len(created["seats"])
        return KingOfDangerState(
            players=n, options=self.created_options(created), names=[s["name"] for s in created["seats"]],
            stacked=bool(created.get("stacked")), dealer=created["options"]["first_dealer"],
            trackers=[TRACKER_START] * n, scores=[0] * n)

    # ---- referee steps -------------------------------------------------------------

    def due(self, state: KingOfDangerState) -> str | None:
        if state.result is not None:
            return None
        return _STEPS.get(state.phase)

    def settle(self, state: KingOfDangerState, rng) -> list[Draft]:
        step = self.due(state)
        if step == "deal":
            deck = stacked_deck(state.options, "deck", state.hands_dealt, list(DECK), rng)
            return [Draft("hand-dealt", {"hand": state.hands_dealt + 1, "dealer": state.dealer,
                                         **deal(deck, state.dealer, state.players)})]
        if step == "score-hand":
            totals = [s + t for s, t in zip(state.scores, state.trackers, strict=True)]
            return [Draft("hand-scored", {"hand": state.hands_dealt,
                                          "trackers": list(state.trackers), "scores": totals})]
        if step == "end-game":
            # the highest score of the seats still in (a seat that left cannot win)
            seat = max(_still_in(state), key=lambda s: (state.scores[s], -s))
            top = state.scores[seat]
            reason = (f"{state.names[seat]} has the highest score, {top}, after hand"
                      f" {state.hands_dealt} (target {state.options['target']})")
            return [Draft("game-ended", {"result": without_leavers(state, {
                "winners": [seat], "reason": reason, "scores": list(state.scores)})})]
        return []

    # ---- moves ---------------------------------------------------------------------

    # the notation's own function, not a method calling it: asked at every move
    normalize = staticmethod(notation.normalize)

    def parse_one(self, text_: str) -> dict:
        return notation.parse_one(text_)

    def format_move(self, move: dict) -> str:
        return notation.format_move(move)

    def _next(self, state: KingOfDangerState) -> int:
        return (state.leader + len(state.trick)) % state.players

    def to_act(self, state: KingOfDangerState) -> list[int]:
        return [self._next(state)] if state.phase == PLAY else []

    def playable(self, state: KingOfDangerState, seat: int) -> list[str]:
        """The cards ``seat`` may choose from: its hand, and with two players the
        face-up cards on its side of the table."""
        return in_order(state.hands[seat] + _face_up(state, seat))

    def _names_suit(self, state: KingOfDangerState, card: str) -> bool:
        # A Wizard names the trick suit when it is the first non-King of the trick.
        return is_wizard(card) and state.trick_suit is None

    def _obliging(self, state: KingOfDangerState, seat: int) -> list[str]:
        """The cards whose suit a seat must follow if it can: those in its hand
        (the text's words), or with ``follow_suit: hand-and-table`` its face-up
        table cards too."""
        if state.options["follow_suit"] == "hand":
            return state.hands[seat]
        return state.hands[seat] + _face_up(state, seat)  # (in no order: only searched)

    def _follows(self, state: KingOfDangerState, card: str, obliging: list[str]) -> bool:
        suit = state.trick_suit
        return (suit is None or suit_of(card) == suit
                or not any(suit_of(c) == suit for c in obliging))

    def legal_moves(self, state: KingOfDangerState, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        playable = self.playable(state, seat)
        obliging = self._obliging(state, seat)
        moves = []
        for card in playable:
            if not self._follows(state, card, obliging):
                continue
            if self._names_suit(state, card):
                moves += [{"type": "play", "card": card, "suit": s} for s in ("walls", "cannons")]
            else:
                moves.append({"type": "play", "card": card})
        return moves

    def decide_move(self, state: KingOfDangerState, seat: int, move: dict) -> list[Draft]:
        if state.phase != PLAY or seat != self._next(state):  # (to_act's one seat)
            raise NotYourTurn(f"it is seat {self._next(state)}'s turn to play"
                              if state.phase == PLAY else "no card is to be played now")
        card = move["card"]
        from_hand = card in state.hands[seat]
        # one of ``playable``'s cards, looked for without sorting them
        if not from_hand and card not in _face_up(state, seat):
            # The same answer whether the card is face down under your own stack,
            # in another hand, set aside or played: a refusal must not tell where.
            raise IllegalMove("not-your-card", f"{card} is not among the cards you may play")
        names = self._names_suit(state, card)
        if names and "suit" not in move:
            raise IllegalMove("name-the-suit", f"{card} leads the trick's suit: name walls or"
                              f" cannons, e.g. 'play {card} walls'")
        if not names and "suit" in move:
            raise IllegalMove("suit-already-named", f"the trick suit is already"
                              f" {state.trick_suit}: play {card} without naming a suit")
        suit = state.trick_suit
        # (the seat's obliging cards are looked at, ``_follows``, only for a card off the suit)
        if (suit is not None and suit_of(card) != suit
                and not self._follows(state, card, self._obliging(state, seat))):
            where = "in your hand" if state.options["follow_suit"] == "hand" else "to play"
            raise IllegalMove("follow-suit", f"this is a {state.trick_suit} trick and you have"
                              f" {state.trick_suit} {where}")
        played = {"seat": seat, "card": card, "from": "hand"}
        if "suit" in move:
            played["suit"] = move["suit"]
        if not from_hand:
            played["from"] = "table"
            under = state.face_down[seat][state.face_up[seat].index(card)]
            if under is not None:
                played["revealed"] = under
        drafts = [Draft("card-played", played)]
        if len(state.trick) + 1 < state.players:
            return drafts
        cards = [list(p) for p in state.trick] + [[seat, card]]
        number_ = len(state.tricks) + 1
        if only_kings(cards):
            drafts.append(Draft("trick-set-aside", {"trick": number_, "cards": cards,
                                                    "leader": state.leader}))
            return drafts
        suit = suit or move.get("suit") or suit_of(card)
        won_by, by = winner(cards, suit)
        drafts.append(Draft("trick-won", {
            "trick": number_, "cards": cards, "suit": suit, "winner": won_by, "by": by,
            "trackers": trackers_after(state.trackers, cards, suit, won_by)}))
        return drafts

    def play(self, state: KingOfDangerState, seat: int,
             move: dict) -> tuple[KingOfDangerState, list[Draft]]:
        """``decide`` then each event applied as ``evolve`` applies it, but for its
        copies (``Engine.play``): a move's events hold only lists its decision made
        anew (the trick's cards, the trackers), which the state may keep as they
        are; a logged event's lists are the log's, and copied. (The copies and the
        generic ``evolve`` were a tenth of a King of Danger replay.)"""
        drafts = self.decide(state, seat, move)
        for draft in drafts:
            if draft.type in _MOVE_EVENTS:
                self._apply(state, draft.type, draft.payload, _own)
            else:  # a resignation
                state = self.evolve(state, draft)
        return state, drafts

    # ---- applying events -------------------------------------------------------------

    def evolve_event(self, state: KingOfDangerState, event: Event) -> KingOfDangerState:
        # The state must never share lists with the log: what it keeps of a payload
        # is copied, value by value (the rest, a move's own fields above all, is
        # only read; copying the whole payload was a third of an audit's time).
        return self._apply(state, event.type, event.payload, json_copy)

    def _apply(self, state: KingOfDangerState, kind: str, p: dict, c) -> KingOfDangerState:
        """An event of ``kind`` with payload ``p`` applied; ``c`` copies what the
        state keeps of ``p`` (or keeps it as it is, for the engine's own events)."""
        # (the most frequent first: a card is played at every move)
        if kind == "card-played":
            seat, card = p["seat"], p["card"]
            if type(seat) is not int or type(card) is not str:  # (a number and a code share nothing)
                seat, card = c(seat), c(card)
            if p["from"] == "hand":
                state.hands[seat].remove(card)
            else:
                k = state.face_up[seat].index(card)
                state.face_up[seat][k] = state.face_down[seat][k]
                state.face_down[seat][k] = None
            state.trick.append([seat, card])
            if state.trick_suit is None:
                state.trick_suit = c(p.get("suit")) or suit_of(card)
        elif kind == "trick-won":
            state.tricks.append({"cards": c(p["cards"]), "suit": c(p["suit"]), "winner": c(p["winner"]),
                                 "by": c(p["by"])})
            state.trackers = c(p["trackers"])
            state.leader = c(p["winner"])
            self._trick_done(state)
        elif kind == "trick-set-aside":
            state.tricks.append({"cards": c(p["cards"]), "suit": None, "winner": None,
                                 "by": "set-aside"})
            state.leader = c(p["leader"])
            self._trick_done(state)
        elif kind == "hand-dealt":
            state.hands_dealt = c(p["hand"])
            state.dealer = c(p["dealer"])
            state.hands = c(p["hands"])
            state.leftovers = c(p["leftovers"])
            state.face_up = c(p.get("face_up", []))
            state.face_down = c(p.get("face_down", []))
            state.leader = (state.dealer + 1) % state.players
            state.trick, state.trick_suit, state.tricks = [], None, []
            if state.options["trackers"] == "reset":
                state.trackers = [TRACKER_START] * state.players
            state.phase = PLAY
        elif kind == "hand-scored":
            state.scores = c(p["scores"])
            state.hands, state.face_up, state.face_down = [], [], []
            state.leftovers, state.trick, state.tricks = [], [], []
            # The game ends once a seat reaches the target, unless the highest score
            # is tied (then another hand); the tie that counts is among the seats
            # still in, as a seat that left cannot win (house rule on_resign).
            best = [state.scores[s] for s in _still_in(state)]
            if max(state.scores) >= state.options["target"] and best.count(max(best)) == 1:
                state.phase = END
            else:
                state.phase = DEAL
                state.dealer = (state.dealer + 1) % state.players
        elif kind == "game-ended":
            state.result = c(p["result"])
        else:
            raise ValueError(f"king-of-danger: unknown event type {kind!r}")
        return state

    def _trick_done(self, state: KingOfDangerState) -> None:
        state.trick, state.trick_suit = [], None
        if not any(state.hands) and not any(c for up in state.face_up for c in up):
            state.phase = SCORE

    # ---- what each viewer sees ---------------------------------------------------------

    def scores(self, state: KingOfDangerState) -> list:
        return list(state.scores)

    def view(self, state: KingOfDangerState, viewer: Viewer) -> dict:
        n = state.players
        out = {
            "game": self.name, "players": list(state.names), "stacked": state.stacked,
            "target": state.options["target"], "follow_suit": state.options["follow_suit"],
            "trackers_between_hands": state.options["trackers"], "phase": state.phase,
            "on_resign": state.options["on_resign"], "left": list(state.left),
            "hand_number": state.hands_dealt, "dealer": state.dealer,
            "trackers": list(state.trackers), "scores": list(state.scores),
            "leftovers": list(state.leftovers),
            "hand_sizes": [len(h) for h in state.hands] if state.hands else [0] * n,
            "leader": state.leader if state.phase == PLAY else None,
            "trick": {"cards": copy.deepcopy(state.trick), "suit": state.trick_suit},
            "tricks": copy.deepcopy(state.tricks),
            "played": [c for t in state.tricks for _, c in t["cards"]]
                      + [c for _, c in state.trick],
            "to_act": self.acting(state), "result": copy.deepcopy(state.result),
        }
        if n == 2:
            out["face_up"] = copy.deepcopy(state.face_up)
            out["covered"] = [[c is not None for c in down] for down in state.face_down]
        if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < n:
            out["seat"] = viewer
            out["hand"] = in_order(state.hands[viewer]) if state.hands else []
        elif viewer == ADMIN:
            out["hands"] = [in_order(h) for h in state.hands]
            if n == 2:
                out["face_down"] = copy.deepcopy(state.face_down)
        return out

    def redact(self, event: Event, viewer: Viewer) -> dict:
        p = event.payload
        if viewer == ADMIN:
            return p
        if event.type == "game-created" and "deck" in p.get("options", {}):
            # An explicit deck order would tell every seat every hand.
            options = {k: v for k, v in p["options"].items() if k != "deck"}
            return {**p, "options": {**options, "deck": "hidden"}}
        if event.type != "hand-dealt":
            return p
        out = {k: v for k, v in p.items() if k not in ("hands", "face_down")}
        out["hands"] = [list(h) if s == viewer else None for s, h in enumerate(p["hands"])]
        out["hand_sizes"] = [len(h) for h in p["hands"]]
        if "face_down" in p:
            out["face_down"] = [[None] * len(down) for down in p["face_down"]]
        return out

    def render(self, state: KingOfDangerState, viewer: Viewer) -> str:
        return text.render(self.view(state, viewer))

    def describe(self, event: Event) -> str:
        return text.describe(event)


def _still_in(state: KingOfDangerState) -> list[int]:
    """The seats that have not left the game (every seat, unless some resigned in a
    game that plays on)."""
    return [s for s in range(state.players) if s not in state.left]


def _face_up(state: KingOfDangerState, seat: int) -> list[str]:
    """The face-up cards on ``seat``'s side of the table (two players; none else)."""
    return [c for c in state.face_up[seat] if c] if state.face_up else []


def _own(value):
    """A value of the engine's own event, kept as it is (``KingOfDanger.play``)."""
    return value
