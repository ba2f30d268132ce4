"""What every rules engine is: a pure *decider* over plain dataclass state.

An engine knows one game's rules and nothing else: no Flask, store, clock or
global random. The service (``referee.service``) and the in-memory ``Table``
(``referee.table``) drive it the same way:

* ``start(created)`` builds the state from the log's first event payload.
* ``decide(state, seat, move)`` checks a player's move against the state and
  returns the events (``Draft``) it causes, or raises ``IllegalMove`` naming the
  rule. It never changes ``state``.
* ``evolve(state, event)`` applies one logged event to the state. It may change
  ``state`` in place and must return it; callers hand it a copy when they might
  throw the result away. Replaying a game is evolving its events in order.
* ``play(state, seat, move)`` is ``decide`` and ``evolve`` in one pass, for a
  caller that gives the state up (an audit's replay); an engine may do both as
  it decides (Castle Danger, King of the Castle), with the same events and state
  as the two steps.
* ``due(state)`` names the referee step owed now (a deal, a hand's scoring, the
  end of the game, a reshuffle, any random draw) or None. While a step is due no
  player may move; ``settle(state, rng)`` returns that step's events. All
  randomness comes from ``rng`` (``referee.rng.Rng``), so an audit re-derives it.
* ``to_act``, ``legal``, ``view``, ``redact``, ``scores`` answer questions.
* ``parse_one`` / ``format_move``: the game's text notation, which round-trips.

Resigning, the game-over checks and splitting text on ``;`` are common to every
game and done here; engines implement the ``*_move``/``*_event`` hooks.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

from referee.errors import (  # noqa: F401 - engines import the refusals from here
    BadOptions,
    GameOver,
    IllegalMove,
    MalformedMove,
    NotYourTurn,
    RefereeError,
)
from referee.events import Draft, Event
from referee.games.copying import json_copy  # noqa: F401 - the engines' payload copy, named here for them
from referee.games.leaving import last_one_in, resign_result

# A viewer the rules show everything: the admin token, as the table lets it see
# (referee/seeing.py: the admin of a game of players sees as a spectator).
ADMIN = "admin"
SPECTATOR = None  # a viewer with no seat: sees what an onlooker at the table sees

Viewer = int | str | None


@dataclass(kw_only=True)
class GameState:
    """Fields every engine's state has. Engines subclass it (kw_only dataclasses)."""

    players: int
    options: dict
    names: list[str]
    # {winners: [seat, ...], reason: str, scores: [...]} once the game is over.
    result: dict | None = None
    # True once the seed's reveal is in the log (a referee job, a moment after the
    # end): every secret is open then, in views as in the log's events. Between the
    # end and the reveal a game is over but still keeps its secrets.
    revealed: bool = False
    # The seats that left a game that plays on (house rule ``on_resign``), in the
    # order they left: the referee plays their turns, and they can no longer win.
    # A tuple, replaced and never changed in place (forks share it).
    left: tuple = ()


def open_to_all(state: GameState) -> bool:
    """Whether nothing of the game is secret any more: over, and its seed revealed."""
    return state.result is not None and state.revealed


# House rule ``on_resign`` (docs/games/*.md): at a table of three or more, whether a
# resignation takes the seat out while the others play on (the default) or ends
# the game for everyone, as it did before the rule.
ON_RESIGN = ("play-on", "end")
# House rules a game names in its first event from the moment they exist, whose
# absence alone says the game was created before them, whatever the engine version
# it records: ``on_resign`` came within a release whose version bumps came first, so
# games of the current versions were created without it (and still end at a
# resignation, as they did).
NAMED_WHEN_PLAYED = ("on_resign",)


def on_resign_option(options: dict) -> str:
    """The house rule ``on_resign`` as a game records it (``play-on`` by default). At
    a table of two both readings end the game, as ever: one seat leaving leaves one
    seat in (``Engine.plays_on``)."""
    return house_rule(options, "on_resign", ON_RESIGN)


_SPLIT = re.compile(r"[;\n]+")


class Engine:
    """Base class of the four engines. Subclasses set the class attributes and
    implement the hooks below; the public methods here are what callers use."""

    name: str = ""  # the contract's id, e.g. "king-of-danger"
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    # Bump when the state's shape changes: cached states of older versions are
    # then thrown away and rebuilt from the log.
    version: int = 1
    # House rules added after games were already being played: option name ->
    # (the engine version that added it, the reading a game created before then
    # is played under). A game keeps the rules it was created with: an older log,
    # whose first event lacks the option, replays and audits under that reading.
    later_options: dict[str, tuple[int, object]] = {}
    # The engine version from which a game whose every seat is a player's is a game
    # of players, whose admin sees as a spectator while it runs (referee/seeing.py);
    # a game created before it keeps the admin who sees everything.
    # None: no game of this engine is one.
    players_since: int | None = None

    # ---- hooks an engine implements -------------------------------------------------

    def setup(self, options: dict, players: int) -> dict:
        """Validate the game's own options (an explicit ``deck`` included) and return
        them complete, defaults filled in. Raise ``BadOptions`` naming the field.
        ``seed`` never reaches here; ``first_dealer`` does, for card games."""
        raise NotImplementedError

    def start(self, created: dict) -> GameState:
        """The state right after the first event. ``created`` has ``options``
        (as ``setup`` returned them), ``seats`` ([{seat, name}]) and ``stacked``."""
        raise NotImplementedError

    def decide_move(self, state, seat: int, move: dict) -> list[Draft]:
        """Events for a normalised, non-resign move of ``seat`` while the game runs
        and no referee step is due. Raise ``NotYourTurn`` or ``IllegalMove``. The
        first draft's payload gets the move itself under ``"move"`` added for you."""
        raise NotImplementedError

    def evolve_event(self, state, event: Event):
        """Apply one event of this engine's own types (not game-created, resigned)."""
        raise NotImplementedError

    def due(self, state) -> str | None:
        raise NotImplementedError

    def settle(self, state, rng) -> list[Draft]:
        """The events of the step ``due(state)`` names. Setting ``state.result`` is
        done in ``evolve_event`` of the event that ends the game."""
        raise NotImplementedError

    def to_act(self, state) -> list[int]:
        raise NotImplementedError

    def legal_moves(self, state, seat: int) -> list[dict]:
        """Every move ``seat`` may submit now, in the exact form ``normalize`` gives."""
        raise NotImplementedError

    def view(self, state, viewer: Viewer) -> dict:
        """The game as ``viewer`` may see it: JSON-ready, nothing hidden from them
        leaked, nothing they may see missing."""
        raise NotImplementedError

    def redact(self, event: Event, viewer: Viewer) -> dict:
        """The payload of ``event`` as ``viewer`` may see it (same dict if nothing is
        hidden). Called for every event a caller reads, the first one included."""
        return event.payload

    def scores(self, state) -> list:
        """Scores by seat, as the summary shows them."""
        raise NotImplementedError

    def self_defeating(self, state, seat: int, move: dict) -> bool:
        """Whether a legal ``move`` loses the game for ``seat`` at once (no bot makes
        it, as no bot resigns; referee/bots)."""
        return False

    def normalize(self, move: dict) -> dict:
        """Check a move's shape (``type`` and fields) and return its canonical form:
        the form ``legal_moves`` lists and the log records. Raise ``MalformedMove``."""
        raise NotImplementedError

    def parse_one(self, text: str) -> dict:
        """One move from its text notation. Raise ``MalformedMove``."""
        raise NotImplementedError

    def format_move(self, move: dict) -> str:
        raise NotImplementedError

    def render(self, state, viewer: Viewer) -> str:
        """The position as text for posts, e-mails and ``referee replay``."""
        import json

        return json.dumps(self.view(state, viewer), indent=1, sort_keys=True)

    def narrate(self, event: Event, names: list[str]) -> str:
        """``describe`` with the players' names for seat numbers ("Ann plays Z5"),
        for notices, pages and replays. Hand it the event as the reader may see it
        (``redact``ed): it says nothing the payload does not."""
        from referee.narration import common, left_words, named

        return named(common(event, self.title) or left_words(event) or self.describe(event), names)

    def describe(self, event: Event) -> str:
        """One line saying what an event was, seats by number (see ``narrate``)."""
        p = event.payload
        if "move" in p:
            return f"seat {event.actor}: {self.format(p['move'])}"
        return f"{event.actor}: {event.type}"

    # ---- the options a game is played under ---------------------------------------------

    def created_options(self, created: dict) -> dict:
        """The options a game is played under (for ``start``): as its first event
        records them, plus, for a game created before a house rule existed, the
        reading it was played under then (``later_options``)."""
        options = dict(created["options"])
        made_by = self.made_by(created)
        for name, (since, reading) in self.later_options.items():
            if name not in options and (made_by < since or name in NAMED_WHEN_PLAYED):
                options[name] = reading
        return options

    @staticmethod
    def made_by(created: dict) -> int:
        """The engine version a game was created by, as its first event records it
        (1 when it records none: the first)."""
        return _version(created.get("engine_version"))

    def options_as_logged(self, completed: dict, logged: dict, made_by) -> dict:
        """``completed`` (``setup``'s answer for the options a log records) as a
        game created by engine version ``made_by`` recorded them: without the house
        rules added since, which its first event cannot name (the audit's check)."""
        made_by = _version(made_by)
        return {k: v for k, v in completed.items()
                if k in logged or (self.later_options.get(k, (0, None))[0] <= made_by
                                   and k not in NAMED_WHEN_PLAYED)}

    # ---- what callers use --------------------------------------------------------------

    def decide(self, state: GameState, seat: int, move: dict) -> list[Draft]:
        normal = self.admitted(state, seat, move)
        if normal is None:
            return [Draft("resigned", {"move": {"type": "resign"}, "seat": seat,
                                       **self.leaving(state, seat, "resigned")})]
        return with_move(self.decide_move(state, seat, normal), normal)

    def plays_on(self, state: GameState) -> bool:
        """Whether a seat leaving (resigning, or out of time on ``forfeit``) takes it
        out while the others play on: house rule ``on_resign`` ``play-on`` at a table
        of three or more. A game created before the rule (its first event does not
        name it: ``NAMED_WHEN_PLAYED``) reads ``end``, so it ends as it did."""
        return state.players >= 3 and state.options.get("on_resign") == "play-on"

    def leaving(self, state: GameState, seat: int, how: str) -> dict:
        """What a ``resigned`` or ``forfeited`` event of ``seat`` says beside the seat:
        its ``result`` when it ends the game (``how`` the reason's words); nothing
        when the game plays on without the seat."""
        if seat in state.left:
            raise IllegalMove("left", f"seat {seat} has left the game already")
        if not self.plays_on(state):
            result = resign_result(state, seat, self.scores(state))
            if how != "resigned":
                result["reason"] = f"seat {seat} {how}"
            return {"result": result}
        result = last_one_in(state, seat, self.scores(state))
        return {} if result is None else {"result": result}

    def admitted(self, state: GameState, seat: int, move: dict) -> dict | None:
        """``move`` in its normal form, for ``decide_move``, once the checks every
        game makes have passed; None for a resignation (``decide``'s own)."""
        if state.result is not None:
            raise GameOver("the game is over")
        if not isinstance(move, dict):
            raise MalformedMove("a move is a JSON object with a 'type'")
        if not isinstance(move.get("type"), str):
            # checked once here, so no engine's normaliser meets a list or an object
            raise MalformedMove("a move's 'type' must be a string", field="type")
        if move.get("type") == "resign":
            if set(move) != {"type"}:
                raise MalformedMove("resign takes no fields")
            return None
        if self.due(state) is not None:
            # The service answers 409 settling before it gets here; an in-memory
            # caller that forgot to settle gets a clear refusal too.
            raise IllegalMove("referee-step-due", f"the referee must first {self.due(state)}")
        return self.normalize(move)

    def play(self, state: GameState, seat: int, move: dict) -> tuple[GameState, list[Draft]]:
        """``decide`` and ``evolve`` in one: the state after the move's events, and
        the events. ``state`` is the caller's to give up (it may be changed in place,
        and is left half-changed by a refusal): an audit's replay, which checks the
        events against the log and stops at the first refusal (referee/audit.py). An
        engine whose decision already computes the position after the move applies
        each event as it decides it, instead of a second pass (Castle Danger, King of
        the Castle); the events are ``decide``'s either way, which a test checks over
        random games."""
        drafts = self.decide(state, seat, move)
        for draft in drafts:
            state = self.evolve(state, draft)
        return state, drafts

    def evolve(self, state: GameState, event: Event) -> GameState:
        if event.type == "game-created":
            return state
        if event.type in ("resigned", "forfeited"):  # forfeited: out of time (referee/table.py)
            result = event.payload.get("result")
            if result is None or "left" in result:  # a seat leaving a game that plays on
                state.left = (*state.left, event.payload["seat"])
            if result is not None:
                state.result = result
            return state
        if event.type in ("game-aborted", "seed-revealed"):
            # Written by the service, not the engine: an abort ends the game with
            # no winner; the seed's reveal changes nothing in play.
            if event.type == "game-aborted":
                state.result = {"winners": [], "reason": event.payload.get("reason", "aborted"),
                                "scores": self.scores(state)}
            else:
                state.revealed = True
            return state
        return self.evolve_event(state, event)

    def legal(self, state: GameState, seat: int) -> list[dict]:
        if state.result is not None or self.due(state) is not None:
            return []
        return self.legal_moves(state, seat) + [{"type": "resign"}]

    def acting(self, state: GameState) -> list[int]:
        if state.result is not None or self.due(state) is not None:
            return []
        return self.to_act(state)

    def lines(self, text: str) -> list[str]:
        """The moves' texts ``parse`` reads, in order: parts separated by ``;`` or
        new lines, blank ones skipped (a refusal names its move by these)."""
        return [part.strip() for part in _SPLIT.split(text) if part.strip()]

    def parse(self, text: str) -> list[dict]:
        """Several moves separated by ``;`` or new lines; blank parts are skipped."""
        if not isinstance(text, str):
            raise MalformedMove("text must be a string", field="text")
        moves, parts = [], self.lines(text)
        for i, part in enumerate(parts):
            try:
                moves.append({"type": "resign"} if part.lower() == "resign" else self.parse_one(part))
            except RefereeError as err:  # which of several moves, as a refused move is named
                if len(parts) > 1:
                    err.extra.setdefault("index", i)
                raise
        if not moves:
            raise MalformedMove("no move in the text", field="text")
        return moves

    def format(self, move: dict) -> str:
        if move.get("type") == "resign":
            return "resign"
        return self.format_move(move)


def with_move(drafts: list[Draft], move: dict) -> list[Draft]:
    """The first draft's payload with the move itself under ``"move"`` (how the log
    records which move wrote the events)."""
    first = drafts[0]
    drafts[0] = Draft(first.type, {"move": move, **first.payload})
    return drafts


def check_players(engine: Engine, players: int) -> None:
    if not engine.min_players <= players <= engine.max_players:
        raise BadOptions(f"{engine.title} is for {engine.min_players} to {engine.max_players} players",
                         field="players")


# The options every game takes beside its own (checked by the service, never by an engine)
COMMON_OPTIONS = ("seed", "clock")


def check_option_names(options: dict, allowed, title: str) -> None:
    """Refuse an option the game does not have, naming it and every one it has
    (its own and those every game takes)."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        every = sorted({*allowed, *COMMON_OPTIONS})
        raise BadOptions(f"{title} has no option {unknown[0]!r}; its options: {', '.join(every)}",
                         field=unknown[0])


def _version(made_by) -> int:
    """The engine version a first event names (1 when it names none: the first)."""
    return made_by if isinstance(made_by, int) and not isinstance(made_by, bool) else 1


def house_rule(options: dict, name: str, readings: tuple):
    """A house rule: an option choosing between readings of a disputed rule, the
    first being the default. Its value must be one of ``readings`` exactly (``1``
    is not ``true``); anything else is refused naming ``options.<name>``."""
    value = options.get(name, readings[0])
    if not any(type(value) is type(r) and value == r for r in readings):
        shown = " or ".join(json.dumps(r) for r in readings)
        raise BadOptions(f"options.{name} is {shown}", field=f"options.{name}")
    return value


def seat_option(options: dict, key: str, players: int, default: int = 0) -> int:
    """An option naming a seat (``first_dealer``, ``first_player``)."""
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise BadOptions(f"{key} must be a seat number from 0 to {players - 1}", field=key)
    return value


def stacked_deck(options: dict, key: str, hand: int, cards: list[str], rng) -> list[str]:
    """The deck for hand ``hand`` (0-based): the explicit order from ``options[key]``
    when given (one deck, or a list of decks, one per hand), else a shuffle of
    ``cards`` by ``rng``. Validation of the explicit decks is ``check_deck``'s."""
    given = options.get(key)
    if given:
        decks = given if isinstance(given[0], list) else [given]
        if hand < len(decks):
            return list(decks[hand])
    return rng.shuffle(cards)


def check_deck(options: dict, key: str, cards: list[str]) -> None:
    """An explicit deck must be an exact permutation of ``cards`` (or a list of
    such, one per hand). Raises ``BadOptions`` naming the field."""
    given = options.get(key)
    if given is None:
        return
    if not isinstance(given, list) or not given:
        raise BadOptions(f"{key} must be a list of cards, top first, or a list of such lists", field=key)
    decks = given if isinstance(given[0], list) else [given]
    for i, deck in enumerate(decks):
        where = f"{key}[{i}]" if decks is given else key
        if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
            raise BadOptions(f"{where} must be a list of card codes", field=where)
        if sorted(deck) != sorted(cards):
            # Counter differences, so decks with several copies of a card (King of
            # the Castle's events) report only what is really missing or extra.
            want, got = Counter(cards), Counter(deck)
            missing = sorted((want - got).elements())
            extra = sorted((got - want).elements())
            raise BadOptions(f"{where} must hold each of the {len(cards)} cards exactly as the game's deck"
                             f" does (missing {missing}, extra {extra})", field=where)
