"""The part of ``Table`` (referee/table.py) that takes votes, disputes and
rulings on: the ledger it keeps, what a carried draw or cancel, a void, an award,
a take-back or an extension does to the game, and the proposals of a seat's vote
or dispute and of the admin's ruling. The rules engines never see these events."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta

from referee import clock as clockmod
from referee.disputes import ledger as ledgermod
from referee.disputes.ledger import Ledger
from referee.events import REFEREE, Event, chain, utcnow


class NeedsHistory(RuntimeError):
    """A take-back is applied from the log before it: ``apply`` was not given it
    (a catch-up from a cached table replays the whole log instead)."""


def is_take_back(ev: Event) -> bool:
    return (ev.type == ledgermod.RULED and isinstance(ev.payload, dict)
            and isinstance(ev.payload.get("decision"), dict) and ev.payload["decision"].get("kind") == "take-back")


@dataclass
class Ledgered:
    """Mixed into ``Table`` (a dataclass base, as ``Seeing``: its field is named
    when a table is made)."""

    # votes, disputes and rulings so far (referee/disputes/ledger.py)
    ledger: Ledger = field(default_factory=Ledger, kw_only=True)

    @property
    def held(self) -> bool:
        """Whether the clocks stand still for a dispute or a voted pause (beside
        the admin's own pause, ``paused``)."""
        return self.ledger.held

    def _ledger_event(self, ev: Event, history: list[Event] | None) -> None:
        """A vote's, a dispute's or a ruling's event: the ledger takes it on, and
        what it decides happens to the game (referee/disputes/ledger.py)."""
        if ev.type == ledgermod.RULED and ev.payload["decision"]["kind"] == "take-back":
            if history is None:
                raise NeedsHistory(f"event {ev.seq} takes the game back: replay it from the log")
            self._take_back(ev.payload["decision"]["to"], history)
        held = self.ledger.held
        self.ledger = ledgermod.taken_on(self.ledger, ev, ledgermod.voters(self))
        p = ev.payload
        if ev.type == ledgermod.VOTE_CARRIED and p["proposal"] in ("draw", "cancel"):
            if p["proposal"] == "draw":
                self.state.result = {"winners": list(p["result"]["winners"]), "reason": p["result"]["reason"],
                                     "scores": list(p["result"]["scores"])}
            else:
                self.state.result = {"winners": [], "reason": "cancelled by a vote of every seat",
                                     "scores": self.engine.scores(self.state)}
                self.aborted = True
        elif ev.type == ledgermod.RULED:
            kind = p["decision"]["kind"]
            if kind == "void":
                self.state.result = {"winners": [], "reason": "void by the organiser's ruling",
                                     "scores": self.engine.scores(self.state)}
                self.aborted = True
            elif kind == "award":
                self.state.result = {"winners": list(p["decision"]["winners"]),
                                     "reason": "awarded by the organiser's ruling",
                                     "scores": self.engine.scores(self.state)}
        self.seq, self.last_hash = ev.seq, ev.hash
        if self.clock is not None and (held != self.ledger.held or ev.type == ledgermod.RULED):
            # the clocks start again, each seat to act with a full move's time (as
            # after the admin's pause), and a ruling may give a seat more
            self.since = {seat: ev.at for seat in self.to_act()}
            self.since_seq = {seat: ev.seq for seat in self.since}
            if ev.type == ledgermod.RULED and p["decision"]["kind"] == "extend":
                seat = p["decision"]["seat"]
                if seat in self.since:
                    start = clockmod.parse_at(self.since[seat]) + timedelta(seconds=p["decision"]["seconds"])
                    self.since = {**self.since, seat: clockmod.format_at(start)}
        self._ended(ev.at)

    def _moved(self) -> None:
        """A seat's move is in the log: a vote under way ends with it."""
        if self.ledger.vote is not None:
            self.ledger = ledgermod.moved(self.ledger)

    def _ended(self, at: str) -> None:
        """The moment the game ended, kept once (the window for disputes after it)."""
        if self.state.result is not None and self.ledger.ended_at is None:
            self.ledger = replace(self.ledger, ended_at=at)

    def replayed_with_take_backs(self, events: list[Event]):
        """This table (just created from ``events[0]``) after the rest of ``events``,
        a log with take-backs: in one pass, keeping a copy of the position after
        each event a take-back goes back to, so that no take-back replays the log
        before it again (whose own take-backs would each replay theirs...)."""
        targets = {ev.payload["decision"]["to"] for ev in events if is_take_back(ev)}
        kept: dict = {}  # seq -> the table after that event
        for ev in events[1:]:
            self.apply(ev, False, kept)
            if ev.seq in targets:
                kept[ev.seq] = self._forked()
        return self

    def _take_back(self, to: int, history) -> None:
        """The game as it was after event ``to``: its position, what the referee
        owed, who had timed out; the log, the seats' holders, the clock and the
        ledger stay as they are now. ``history``: the log before (a list), or the
        positions kept by a replay in one pass (a dict: seq -> table)."""
        back = history[to] if isinstance(history, dict) else type(self).replay(history[:to])
        back = back._forked()  # (a kept position may be gone back to again)
        self.state = back.state
        self.owed, self.timed_out, self.aborted = back.owed, back.timed_out, back.aborted

    def propose_seat(self, seat: int, kind: str, body, at: str | None = None,
                     salt_key: str | None = None) -> tuple[list[Event], Ledgered]:
        """The event a seat's vote, answer or dispute (``kind``) writes now."""
        at = at or utcnow()
        drafts = ledgermod.seat_drafts(self, seat, kind, body, at)
        return self._extend(drafts, seat, at, salt_key)

    def propose_ruling(self, body, at: str | None = None, salt_key: str | None = None,
                       history: list[Event] | None = None) -> tuple[list[Event], Ledgered]:
        """The admin's ruling as the referee's ``ruled`` event (``history``: the
        log so far, which a take-back replays)."""
        drafts = ledgermod.ruling_drafts(self, body, history)
        at = at or utcnow()
        fork = self._forked()
        ev = chain(drafts, REFEREE, fork.seq + 1, fork.last_hash, at, salt_key)[0]
        fork.apply(ev, history=history)
        return [ev], fork
