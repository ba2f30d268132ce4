"""The state of a game of King of the Castle: plain lists and dicts only."""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.games.base import GameState, json_copy


@dataclass(kw_only=True)
class CastleState(GameState):
    stacked: bool = False
    # deal -> (choose ->) next -> play -> next ... -> scoring; "over" once scored.
    stage: str = "deal"
    first_player: int = 0
    next_seat: int = 0
    turn: int | None = None
    king: str | None = None
    # Castles 1-3 left to right: {"lord", "seneschal", "master": letter or None,
    # "domain", "prestige", "defence": [card names, bottom first]}.
    castles: list[dict] = field(default_factory=list)
    personality_deck: list[str] = field(default_factory=list)  # top first
    personality_discard: list[str] = field(default_factory=list)
    event_deck: list[str] = field(default_factory=list)  # top first
    event_discard: list[str] = field(default_factory=list)  # oldest first, face up
    hands: list[list[str]] = field(default_factory=list)
    squires: list[list[str] | None] = field(default_factory=list)
    set_aside: list[list[str]] = field(default_factory=list)  # the letters deal's cards
    standing: list[str] = field(default_factory=list)  # "ask" or "pass", per seat
    # Seats whose standing answer changed since the game last moved on: they may
    # not change it again until something else happens (changing it back would
    # undo it and change nothing, and a log must not fill up with such flips).
    standing_fresh: list[int] = field(default_factory=list)
    turns_taken: list[int] = field(default_factory=list)
    # What the player whose turn it is still owes, first first:
    # {"kind": "free"} (play a card from the hand, or pass) or
    # {"kind": "sudden", "cards": [...]} (play these drawn cards now).
    tasks: list[dict] = field(default_factory=list)
    # A draw under way: {"seat", "n" still to draw, "purpose": "hand"|"sudden", "got": [...]}.
    owed: dict | None = None
    # A random card the referee must pick: {"kind": "steal", "from", "to"} or
    # {"kind": "lose", "seat"}.
    random_pending: dict | None = None
    # What the last card played threatens, before reactions: {"actor", "deaths":
    # [letters], "discards": [{"castle", "attribute", "card"}], "heir": castle or
    # None, "asked": ["death", "discard"] windows already held}.
    threat: dict | None = None
    # An open reaction window: {"kind": "death"|"discard", "queue": [seats to ask]}.
    window: dict | None = None
    ending: bool = False  # a dead man's post could not be filled
    # The Lord of the largest castle earns his +3 when every castle is at level 0
    # too (the leftmost counts as largest); games created by engine version 2 or
    # earlier were scored without it, and keep that scoring.
    zero_level_lord_bonus: bool = True

    def fork(self) -> CastleState:
        """A copy sharing no list or dict with this state but those never changed in
        place (the options, the names, the result): what a script plays a move on
        (flow.Script) and a table proposes one on (referee/table.py). Every other
        field is copied level by level, at a third of a pickle round trip's cost
        (11 against 31 microseconds); a field added to the state must be copied
        here, which a test checks over random games."""
        other = object.__new__(CastleState)  # (copy.copy's generic protocol costs a third of the rest)
        other.__dict__.update(self.__dict__)
        other.castles = [{**c, "domain": c["domain"].copy(), "prestige": c["prestige"].copy(),
                          "defence": c["defence"].copy()} for c in self.castles]
        other.personality_deck = self.personality_deck.copy()
        other.personality_discard = self.personality_discard.copy()
        other.event_deck = self.event_deck.copy()
        other.event_discard = self.event_discard.copy()
        other.hands = [hand.copy() for hand in self.hands]
        other.squires = [None if s is None else s.copy() for s in self.squires]
        other.set_aside = [cards.copy() for cards in self.set_aside]
        other.standing = self.standing.copy()
        other.standing_fresh = self.standing_fresh.copy()
        other.turns_taken = self.turns_taken.copy()
        # small or None most of the time: copied whole
        other.tasks = json_copy(self.tasks)
        other.owed = json_copy(self.owed)
        other.random_pending = json_copy(self.random_pending)
        other.threat = json_copy(self.threat)
        other.window = json_copy(self.window)
        return other
